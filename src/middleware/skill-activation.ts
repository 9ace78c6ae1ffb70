// SkillActivation — WHY: a skill's instructions arrive once (the `skill` tool's result, or the message a typed
// `/<skill>` adds) and must keep applying for the rest of the thread. A compaction removes old messages, and with
// them the instructions; `skill_context` (a reference per skill, LRU of 8) survives it. Before each model call this
// middleware checks every recorded skill: when no message carrying its text is left, it re-reads SKILL.md and
// appends it as a hidden reminder (persisted, so the next requests share the prefix, and done once per compaction).
// WHY beforeModel and its position (after Summarization and Todo, before Title): before* hooks run in list order,
// so it sees the history exactly as the model is about to, after any compaction of that same call.
import type { BaseMessage } from "@langchain/core/messages";
import { StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import type { SkillCatalog } from "../skills/catalog.js";
import { skillMessage } from "../skills/activation.js";
import { THREAD_STATE_VALUES } from "../state/thread-state.js";
import type { SkillContextEntry } from "../state/types.js";
import { SKILL_MARKER } from "../vocabulary/message-markers.js";

const stateSchema = new StateSchema({ skill_context: THREAD_STATE_VALUES.skill_context });

/** Names of the skills whose full text is in `messages`. */
function presentSkills(messages: readonly BaseMessage[]): Set<string> {
  const out = new Set<string>();
  for (const m of messages) {
    const name = (m as { additional_kwargs?: Record<string, unknown> }).additional_kwargs?.[SKILL_MARKER];
    if (typeof name === "string") out.add(name);
  }
  return out;
}

export function skillActivationMiddleware(options: { catalog: SkillCatalog }) {
  const byName = new Map(options.catalog.skills.map((s) => [s.name, s]));
  return createMiddleware({
    name: "SkillActivation",
    stateSchema,
    beforeModel: (state) => {
      const entries = ((state as { skill_context?: SkillContextEntry[] }).skill_context ?? []) as SkillContextEntry[];
      if (entries.length === 0) return undefined;
      const present = presentSkills(state.messages ?? []);
      const restored: BaseMessage[] = [];
      for (const e of entries) {
        const skill = byName.get(e.name);
        if (!skill || present.has(e.name)) continue; // gone from disk since: nothing to restore
        try {
          restored.push(skillMessage(skill, "restored"));
        } catch {
          // An unreadable SKILL.md now: the summary still says the skill was used.
        }
      }
      return restored.length ? ({ messages: restored } as never) : undefined;
    },
  });
}
