// Custom commands in a real terminal: the `/` menu lists a project's command with its argument hint and description,
// tab completes it, enter sends the expanded prompt (the screen shows what was typed); /help lists it with its file;
// a command file named like a built-in never replaces it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../support/openai-server.js";
import { useE2E } from "../support/e2e.js";
import { MENU_TOP, inputText, submit, typeEchoed, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();
const textOf = (m: any): string => (typeof m?.content === "string" ? m.content : Array.isArray(m?.content) ? m.content.map((b: any) => b?.text ?? "").join("") : "");
const userTexts = (r: RecordedRequest) => r.body.messages.filter((m: any) => m.role === "user").map(textOf) as string[];

describe("custom commands in the chat", () => {
  it("the / menu shows a project's command; tab and enter send its expanded prompt; /help names its file; a built-in is never replaced", async () => {
    const sb = e2e.sandbox();
    const dir = join(sb.cwd, ".deerflow", "commands");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "review.md"), "---\ndescription: Review the code for bugs\nargument-hint: [area]\n---\nREVIEW-BODY: look hard at the $ARGUMENTS code.\n");
    writeFileSync(join(dir, "help.md"), "HELP-TAKEOVER-BODY");
    e2e.server.push({ content: "Reviewed it." });
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);

    await typeEchoed(t, "/revi");
    await t.waitFor(/\/review \[area\]\s+Review the code for bugs \(project\)/, { where: "screen" });
    await t.press("tab");
    await t.waitFor(() => inputText(t) === "/review", { where: "screen" });
    await t.waitForGone(MENU_TOP);
    await t.type("auth");
    await t.press("enter");
    await t.waitFor("Reviewed it.");
    expect(userTexts(e2e.server.requests[0]!).join("\n")).toContain("REVIEW-BODY: look hard at the auth code.");
    expect(t.scrollback()).toContain("/review auth");

    await submit(t, "/help");
    await t.waitFor(/\/review \[area\]\s+Review the code for bugs — project:\s+\S+\/\.deerflow\/commands\/review\.md/);
    await t.waitFor("/compact [focus]"); // the built-in help, not the file
    expect(t.scrollback()).not.toContain("HELP-TAKEOVER-BODY");
    expect(e2e.server.requests).toHaveLength(1);
  }, 90_000);
});
