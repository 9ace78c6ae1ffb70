// Skills through the CLI against the loopback model server (which records every request): discovery from
// the project's .deerflow/skills (nearest first) and the data directory's skills/, the listing in the `skill`
// tool (the system prompt unchanged), activation by the model's tool call and by a typed `/<skill>`, the skill's
// files read at /mnt/skills/<name>, and the instructions surviving a compaction.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../support/openai-server.js";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";

const e2e = useE2E();

const textOf = (m: any): string => (typeof m?.content === "string" ? m.content : Array.isArray(m?.content) ? m.content.map((b: any) => b?.text ?? "").join("") : "");
const isSide = (r: RecordedRequest) => /^(Write a short title|Summarize this conversation)/.test(textOf(r.body.messages?.[0]));
const agentRequests = (rs: RecordedRequest[]) => rs.filter((r) => !isSide(r));
const skillTool = (r: RecordedRequest) => (r.body.tools ?? []).find((t: any) => t.function?.name === "skill")?.function;

function writeSkill(root: string, folder: string, frontMatter: string, body: string, files: Record<string, string> = {}) {
  const dir = join(root, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), `---\n${frontMatter}\n---\n${body}\n`);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

function installSkills(sb: Sandbox) {
  const project = join(sb.cwd, ".deerflow", "skills");
  const user = join(sb.home, "skills");
  writeSkill(
    project,
    "release-notes",
    "name: release-notes\ndescription: >\n  Write release notes from the git log.\n  Use when the user asks for a changelog.\nlicense: MIT\nmetadata:\n  version: 2",
    "RN-BODY: group changes by feature; never list merge commits.",
    { "template.md": "TEMPLATE-LINE-1\n" },
  );
  // The same name in the user's directory: the project's (nearer) one wins.
  writeSkill(user, "release-notes", "name: release-notes\ndescription: the user's older copy", "USER-COPY-BODY");
  writeSkill(user, "sql-style", 'name: sql-style\ndescription: "House SQL style: uppercase keywords, one clause per line."', "SQL-BODY: uppercase keywords.");
}

describe("skills through the built CLI", () => {
  it("lists installed skills in the skill tool (system prompt unchanged) and activates one by tool call; its files are readable at /mnt/skills", async () => {
    const sb = e2e.sandbox();
    // The system prompt without any skill installed, for comparison. Spawned: a process discovers its skills once
    // (skills/catalog.ts), and the in-process runs below must be the first to look.
    e2e.server.push({ content: "no skills here" });
    expect((await sb.run(["run", "hello"])).exitCode).toBe(0);
    const bare = agentRequests(e2e.server.requests)[0]!;
    expect(skillTool(bare)).toBeUndefined();
    e2e.server.requests.length = 0;

    installSkills(sb);
    e2e.server.push(
      { toolCalls: [{ name: "skill", args: { name: "release-notes" } }] },
      { toolCalls: [{ name: "read_file", args: { path: "/mnt/skills/release-notes/template.md" } }] },
      { content: "notes written" },
    );
    const r = await runCli(sb, ["run", "--output-format", "json", "write the changelog"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const reqs = agentRequests(e2e.server.requests);
    const tool = skillTool(reqs[0]!);
    // Marked by source: the project's own skills are not the user's.
    expect(tool.description).toContain("[project]: from the repository being worked on, written by its authors");
    expect(tool.description).toContain("- release-notes [project]: Write release notes from the git log. Use when the user asks for a changelog.");
    expect(tool.description).toContain("- sql-style [user]: House SQL style: uppercase keywords, one clause per line.");
    expect(tool.description).not.toContain("the user's older copy");
    // The system prompt is byte-identical to the one without skills.
    expect(textOf(reqs[0]!.body.messages[0])).toBe(textOf(bare.body.messages[0]));
    // The tool result carries the full instructions and names the files; read_file reads one of them.
    const skillResult = reqs[1]!.body.messages.at(-1);
    expect(skillResult.role).toBe("tool");
    expect(textOf(skillResult)).toContain("RN-BODY: group changes by feature");
    expect(textOf(skillResult)).toContain("template.md");
    expect(textOf(skillResult)).not.toContain("USER-COPY-BODY");
    expect(textOf(reqs[2]!.body.messages.at(-1))).toContain("TEMPLATE-LINE-1");
    // doctor names each skill's source too.
    expect((await runCli(sb, ["doctor"])).stdout).toMatch(/^✓ skills {2}\d+ installed: .*release-notes \[project\].*sql-style \[user\]/m);
  });

  it("activates a skill typed as /<name> in `run`: its text goes in before the request, and bash sees its folder read-only", async () => {
    const sb = e2e.sandbox();
    installSkills(sb);
    e2e.server.push(
      { toolCalls: [{ name: "bash", args: { command: "cat /mnt/skills/release-notes/template.md; touch /mnt/skills/release-notes/x 2>&1 || echo WRITE-REFUSED" } }] },
      { content: "done" },
    );
    const r = await runCli(sb, ["run", "--yes", "/release-notes for v2"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const [first, second] = agentRequests(e2e.server.requests);
    const users = first!.body.messages.filter((m: any) => m.role === "user").map(textOf);
    const skillAt = users.findIndex((u: string) => u.includes("RN-BODY"));
    const promptAt = users.findIndex((u: string) => u === "/release-notes for v2");
    expect(skillAt).toBeGreaterThanOrEqual(0);
    expect(promptAt).toBeGreaterThan(skillAt);
    expect(users[skillAt]).toContain('The user activated the skill "release-notes"');
    const out = textOf(second!.body.messages.at(-1));
    expect(out).toContain("TEMPLATE-LINE-1");
    expect(out).toContain("WRITE-REFUSED");
  });

  it("keeps an activated skill's instructions across a compaction", async () => {
    const sb = e2e.sandbox();
    installSkills(sb);
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ models: { "test-model": { model: "test-model", contextWindow: 6000 } }, compaction: { keepRecentTokens: 300 } }));
    for (let i = 0; i < 6; i++) writeFileSync(join(sb.cwd, `f${i}.txt`), `${`file ${i} `.repeat(400)}\n`);
    let step = 0;
    e2e.server.setScript((req) => {
      if (textOf(req.body.messages[0]).startsWith("Summarize this conversation")) return { content: "Summary: files were read." };
      if (textOf(req.body.messages[0]).startsWith("Write a short title")) return { content: "t" };
      step += 1;
      if (step === 1) return { toolCalls: [{ name: "skill", args: { name: "sql-style" } }] };
      if (step <= 7) return { toolCalls: [{ name: "read_file", args: { path: `f${step - 2}.txt` } }] };
      return { content: "finished" };
    });
    const r = await runCli(sb, ["run", "--yes", "-w", sb.cwd, "--output-format", "json", "format the queries"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const all = e2e.server.requests;
    const summaryAt = all.findIndex((q) => textOf(q.body.messages[0]).startsWith("Summarize this conversation"));
    expect(summaryAt).toBeGreaterThan(0); // a compaction happened
    const after = agentRequests(all.slice(summaryAt));
    expect(after.length).toBeGreaterThan(0);
    for (const q of after) {
      const texts = q.body.messages.map(textOf);
      // The skill tool's original result was compacted away; its instructions are back, once.
      expect(texts.filter((t: string) => t.includes("SQL-BODY: uppercase keywords.")).length).toBe(1);
    }
    expect(after.at(-1)!.body.messages.map(textOf).join("\n")).toContain('The skill "sql-style" was activated earlier');
  });

  it("a skill typed as /<name> is recorded too: its text comes back after a later compaction", async () => {
    const sb = e2e.sandbox();
    installSkills(sb);
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ models: { "test-model": { model: "test-model", contextWindow: 6000 } }, compaction: { keepRecentTokens: 300 } }));
    for (let i = 0; i < 6; i++) writeFileSync(join(sb.cwd, `f${i}.txt`), `${`file ${i} `.repeat(400)}\n`);
    let step = 0;
    e2e.server.setScript((req) => {
      if (textOf(req.body.messages[0]).startsWith("Summarize this conversation")) return { content: "Summary: files were read." };
      step += 1;
      if (step <= 6) return { toolCalls: [{ name: "read_file", args: { path: `f${step - 1}.txt` } }] };
      return { content: "finished" };
    });
    const r = await runCli(sb, ["run", "--yes", "-w", sb.cwd, "/sql-style format the queries"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const all = e2e.server.requests;
    const summaryAt = all.findIndex((q) => textOf(q.body.messages[0]).startsWith("Summarize this conversation"));
    expect(summaryAt).toBeGreaterThan(0);
    for (const q of agentRequests(all)) {
      expect(q.body.messages.map(textOf).filter((t: string) => t.includes("SQL-BODY: uppercase keywords.")).length).toBe(1);
    }
  });
});
