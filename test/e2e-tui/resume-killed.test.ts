// The chat through the ThreadRuntime on a thread whose run was killed with -9 part-way (after the model asked for a
// tool): `deerflow resume` opens it (never "busy", never stuck `running`), /title renames it, and the next prompt
// continues it with the cut tool call mended.
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { listThreads, userTexts } from "../support/requests.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

describe("resuming a killed run in the chat", () => {
  it("resume, /title and a new prompt work on a thread whose run was killed mid tool call", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "Started." });
    const first = await sb.run(["run", "--output-format", "json", "the first question"]);
    expect(first.exitCode, first.stderr).toBe(0);
    const id = JSON.parse(first.stdout).thread_id as string;

    // The model asks for a command; the process dies while that command runs.
    e2e.server.push({ toolCalls: [{ id: "slow1", name: "bash", args: { command: "sleep 20" } }] });
    const killed = sb.spawn(["run", "--thread", id, "--yes", "--output-format", "stream-json", "run the slow thing"]);
    let buf = "";
    await new Promise<void>((resolve) => {
      killed.stdout!.on("data", (d: Buffer) => {
        buf += d.toString();
        if (buf.includes('"type":"tool.started"')) {
          killed.kill("SIGKILL");
          resolve();
        }
      });
      void killed.then(
        () => resolve(),
        () => resolve(),
      );
    });
    await killed.catch(() => {});
    expect(buf).toContain('"type":"tool.started"');

    const t = tui.spawn(sb, ["resume", id]);
    await t.waitFor(`Resumed thread ${id}`);
    await waitReady(t);
    expect((await listThreads(sb)).find((x) => x.id === id)!.status).toBe("interrupted");

    await submit(t, "/title After the crash");
    await t.waitFor("Title: After the crash");
    expect((await listThreads(sb)).find((x) => x.id === id)!.title).toBe("After the crash");

    e2e.server.push({ content: "Carrying on after the crash." });
    await submit(t, "carry on");
    await t.waitFor("Carrying on after the crash.");
    const sent = e2e.server.requests.at(-1)!;
    expect(userTexts(sent)).toEqual(["the first question", "run the slow thing", "carry on"]);
    // The cut tool call was answered (mended), so the provider would accept the history.
    const msgs = sent.body.messages as { role: string; tool_call_id?: string }[];
    expect(msgs.some((m) => m.role === "tool" && m.tool_call_id === "slow1")).toBe(true);
    // The answer shows while the run is still finishing; the input coming back means the run has ended.
    await waitReady(t);
    expect((await listThreads(sb)).find((x) => x.id === id)!.status).toBe("success");
  }, 90_000);
});
