// skill — the model's way to activate a skill (Claude Code's Skill tool). The catalog is listed in this tool's
// description, built once when the agent is compiled: the system prompt stays byte-identical (the provider's prefix
// cache), the listing sits with the one tool that uses it, and a tool list is the part of a request that is allowed
// to change (deferred tools are promoted into it too). The full instructions come back as the tool result, marked
// so SkillActivation can restore them after a compaction, and `skill_context` records the activation.
import { ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { type SkillCatalog, SKILLS_VIRTUAL_ROOT } from "../skills/catalog.js";
import { readSkillResource, skillContextEntry, skillText } from "../skills/activation.js";
import { SKILL_MARKER } from "../vocabulary/message-markers.js";
import { type RuntimeLike, toolCallIdOf } from "./fs-common.js";

/** The listing in the tool's description stays under this (descriptions are cut first, then skills left out). */
const LISTING_MAX_CHARS = 12_000;

export function skillListing(catalog: SkillCatalog): string {
  const lines: string[] = [];
  let used = 0;
  for (const s of catalog.skills) {
    const line = `- ${s.name} [${s.scope}]: ${s.description.length > 250 ? `${s.description.slice(0, 249)}…` : s.description}`;
    if (used + line.length > LISTING_MAX_CHARS) {
      lines.push(`- (${catalog.skills.length - lines.length} more skills not listed)`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines.join("\n");
}

export function createSkillTool(catalog: SkillCatalog) {
  const byName = new Map(catalog.skills.map((s) => [s.name, s]));
  const find = (name: string) => {
    const skill = byName.get(name.trim().replace(/^\//, ""));
    if (!skill) throw new Error(`There is no skill named ${JSON.stringify(name)}. Available skills: ${[...byName.keys()].join(", ")}.`);
    return skill;
  };
  return tool(
    async (input, runtime: ToolRuntime) => {
      const skill = find(input.name);
      if (input.file) return readSkillResource(skill, input.file);
      const rt = runtime as RuntimeLike;
      const messages = (rt.state as { messages?: unknown[] } | undefined)?.messages ?? [];
      return new Command({
        update: {
          skill_context: [skillContextEntry(skill, messages.length)],
          messages: [new ToolMessage({ content: skillText(skill), tool_call_id: toolCallIdOf(rt), name: "skill", additional_kwargs: { [SKILL_MARKER]: skill.name } })],
        },
      });
    },
    {
      name: "skill",
      description:
        `Activate a skill: returns its full instructions (follow them) and lists its files, which live read-only under ${SKILLS_VIRTUAL_ROOT}/<name>/. ` +
        `Use a skill when the request matches its description; activate it before doing the work. With \`file\`, returns one of the skill's files instead.\n` +
        // Where each came from: a [project] skill was written by the repository's authors, not by the user.
        `Available skills ([user]: installed by the user; [project]: from the repository being worked on, written by its authors):\n${skillListing(catalog)}`,
      schema: z.object({
        name: z.string().describe("The skill's name, as listed."),
        file: z.string().optional().describe(`A file of the skill to read (relative to its folder, or under ${SKILLS_VIRTUAL_ROOT}/<name>/).`),
      }),
    },
  );
}
