// `/skills`: the installed skills (a skill named like a built-in command is shadowed in the chat) and the ones that
// did not load.
import type { SlashCommand } from "./types.js";

export const skillsCommand: SlashCommand = {
  name: "skills",
  description: "list the installed skills (activate one with /<skill> [request])",
  run: (ctx) => {
    const { skills, problems } = ctx.session.skills;
    const lines = skills.map((k) => `/${k.name}${ctx.isBuiltIn(k.name) ? " (shadowed by the built-in command: the model can still use it)" : ""} — ${k.description} [${k.scope}]`);
    ctx.notice(
      "info",
      skills.length
        ? `Skills (activate with /<name> [request]; the model may also use them on its own):\n${lines.join("\n")}`
        : "No skills installed. Put a folder with a SKILL.md in .deerflow/skills/ (this project) or in the data directory's skills/.",
    );
    if (problems.length) ctx.notice("warning", `Skills not loaded:\n${problems.join("\n")}`);
  },
};
