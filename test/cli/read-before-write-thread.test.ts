// ReadBeforeWrite is kept with the thread: a file read in one `run --thread` may be edited by the next run (a new
// process) without reading it again, unless it changed since. Spawns the built CLI: a new process per run is the point.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();
const call = (id: string, name: string, args: Record<string, unknown>) => ({ toolCalls: [{ id, name, args }] });
const toolResults = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; name?: string; status?: string; output?: string })
    .filter((e) => e.type === "tool.completed");

describe("read-before-write across runs of a thread", () => {
  it("a continuation edits a file an earlier run read; once the file changed on disk, the edit is refused until read again", async () => {
    const sb = e2e.sandbox();
    const file = join(sb.cwd, "notes.txt");
    writeFileSync(file, "alpha\nbeta\n");
    e2e.server.push(call("r1", "read_file", { path: "notes.txt" }), { content: "read it" });
    const first = await sb.run(["run", "--output-format", "json", "read notes.txt"]);
    expect(first.exitCode, first.stderr).toBe(0);
    const threadId = JSON.parse(first.stdout).thread_id as string;

    // The next process edits without reading again: the thread read this very version.
    e2e.server.push(call("s1", "str_replace", { path: "notes.txt", old_str: "beta", new_str: "gamma" }), { content: "edited" });
    const second = await sb.run(["run", "--thread", threadId, "--output-format", "stream-json", "change beta to gamma"]);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(toolResults(second.stdout)).toMatchObject([{ name: "str_replace", status: "ok" }]);
    expect(readFileSync(file, "utf8")).toBe("alpha\ngamma\n");

    // The user changes the file: the record no longer stands.
    writeFileSync(file, "alpha\ngamma\ndelta\n");
    e2e.server.push(call("s2", "str_replace", { path: "notes.txt", old_str: "gamma", new_str: "epsilon" }), { content: "refused" });
    const third = await sb.run(["run", "--thread", threadId, "--output-format", "stream-json", "change gamma to epsilon"]);
    expect(third.exitCode, third.stderr).toBe(0);
    const [refused] = toolResults(third.stdout);
    expect(refused).toMatchObject({ name: "str_replace", status: "error" });
    expect(refused!.output).toMatch(/read \S*notes\.txt first/);
    expect(readFileSync(file, "utf8")).toBe("alpha\ngamma\ndelta\n");
  });
});
