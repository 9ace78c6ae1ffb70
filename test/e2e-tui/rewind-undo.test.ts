// `/rewind undo` in a real terminal (issue 27, part 7): a rewind taken back from the chat, as `deerflow rewind --undo`
// does from the CLI — the file the rewound run wrote is there again and the conversation shows that run again.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { userTexts } from "../support/requests.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

/** Generous: the machine is shared, and each run snapshots the workspace with real git processes. */
const LONG = { timeoutMs: 60_000 };

/** `re` over the screen's text with the terminal's line breaks taken out (a notice wraps at the screen's width). */
const flat = (re: RegExp) => (text: string) => re.test(text.replace(/\s+/g, " "));

describe("/rewind undo", () => {
  it("puts the last rewind back: the file and the conversation; a second undo says there is none", async () => {
    const sb = e2e.sandbox();
    const work = join(sb.userHome, "work");
    mkdirSync(work);
    e2e.server.push({ toolCalls: [{ id: "b1", name: "bash", args: { description: "write", command: "printf 'made\\n' > made.txt" } }] }, { content: "Wrote made.txt." });
    const t = tui.spawn(sb, ["chat", "-w", work, "--approval", "yolo"], { cols: 100, rows: 30 });
    await waitReady(t, 60_000);
    await submit(t, "make the file");
    await t.waitFor("Wrote made.txt.", LONG);
    await t.waitForGone("Working…", LONG);

    await submit(t, "/rewind 1");
    await t.waitFor(flat(/Rewound thread \S+ to before run run-\w+ \(1 run undone\): the conversation and 1 file: made\.txt restored\..* Undo with `\/rewind undo`\./), LONG);
    expect(existsSync(join(work, "made.txt"))).toBe(false);
    await t.waitFor(/Rewound thread \S+ · .*\(\w+, 0 entries\)/);

    await submit(t, "/rewind undo");
    await t.waitFor(flat(/Undid rewind \S+ on thread \S+: the conversation and 1 file: made\.txt put back\./), LONG);
    expect(readFileSync(join(work, "made.txt"), "utf8")).toBe("made\n");
    // The chat draws the thread again, with the run that came back.
    await t.waitFor((text) => /Restored thread \S+ · .*\(\w+, 3 entries\)[\s\S]*❯ make the file[\s\S]*Wrote made\.txt\./.test(text));

    // The conversation goes on from after the run that came back.
    e2e.server.push({ content: "Still here." });
    await submit(t, "and now?");
    await t.waitFor("Still here.", LONG);
    expect(userTexts(e2e.server.requests.at(-1)!)).toEqual(["make the file", "and now?"]);
    await t.waitForGone("Working…", LONG);

    await submit(t, "/rewind undo");
    await t.waitFor(flat(/has no rewind to undo/), LONG);
  }, 300_000);
});
