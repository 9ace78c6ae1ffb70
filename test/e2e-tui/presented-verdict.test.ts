// End to end in a real terminal: what issue 30 delivers to the chat. A file the agent presents shows as one line
// naming where it is on this machine (not the model's /mnt/user-data path), and a subagent whose report cites a tool
// call it never made shows in the Subagents panel as failed, with the runtime's verdict.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import type { ScriptedReply } from "../support/openai-server.js";
import { isChild, listThreads } from "../support/requests.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

describe("presented files and subagent verdicts in the terminal", () => {
  it("a presented file shows its real path; a subagent with a forged receipt shows failed with the verdict", async () => {
    const sb = e2e.sandbox();
    // Edits go without asking (auto-edit): the question is not what this test is about.
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ approval: "auto-edit" }));
    const lead: ScriptedReply[] = [
      { toolCalls: [{ id: "w", name: "write_file", args: { path: "/mnt/user-data/outputs/report.md", content: "# Report\n" } }] },
      { toolCalls: [{ id: "p", name: "present_files", args: { filepaths: ["/mnt/user-data/outputs/report.md"] } }] },
      { toolCalls: [{ id: "t1", name: "task", args: { description: "run the tests", prompt: "Run the tests and report.", subagent_type: "general-purpose" } }] },
      { content: "All done here." },
    ];
    const child: ScriptedReply[] = [{ toolCalls: [{ id: "real_ls", name: "ls", args: { path: "." } }] }, { content: "Listed the files [receipt: real_ls]; the tests pass [receipt: call_tests_42]." }];
    e2e.server.setScript((req) => (isChild(req) ? (child.shift() ?? { content: "child: nothing more" }) : (lead.shift() ?? { content: "unexpected extra turn" })));
    const t = tui.spawn(sb, ["chat"], { cols: 160 });
    await waitReady(t);
    await submit(t, "write the report, present it, then delegate the tests");
    await t.waitFor("All done here.");

    const [thread] = await listThreads(sb);
    const file = join(sb.home, "threads", thread!.id, "outputs", "report.md");
    await t.waitFor(`presented file: ${file}`);
    expect(t.scrollback()).not.toContain("presented file: /mnt/");

    await t.waitFor("Subagents (1 failed) · ctrl+t opens it", { where: "screen" });
    await t.press("ctrl-t");
    await t.waitFor(/✗ run the tests \(general-purpose\) failed .*cites tool calls it never made: call_tests_42/, { where: "screen" });
  }, 60_000);
});
