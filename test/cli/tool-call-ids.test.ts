// A model that reuses a tool-call id from an earlier turn (local servers that count "call_0", "call_1"… per answer)
// gets that call run like any other: the tool node skipped every call whose id already had a result, so the command
// never ran, its `tool.started` had no `tool.completed`, and the model was told it was "interrupted".
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { useE2E } from "../support/e2e.js";
import { HAS_BWRAP, type Mode, pathWithoutBwrap, toolResults, unconfinedFlag } from "../support/confinement.js";

const e2e = useE2E();
const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];
const bash = (id: string, command: string) => ({ id, name: "bash", args: { description: "write", command } });

describe.each(modes)("a reused tool-call id (%s)", (mode) => {
  it("runs the call; every tool.started has its tool.completed; the model gets real results", async () => {
    const sb = e2e.sandbox();
    const env = mode === "fallback" ? { PATH: pathWithoutBwrap(sb) } : {};
    e2e.server.push(
      { toolCalls: [bash("call_0", "printf one > one.txt && echo wrote one")] },
      { toolCalls: [bash("call_0", "printf two > two.txt && echo wrote two"), bash("call_1", "printf three > three.txt && echo wrote three")] },
      { content: "All written." },
    );
    const r = await sb.run(["run", "--yes", ...unconfinedFlag(mode), "-w", sb.cwd, "--output-format", "stream-json", "write three files"], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    for (const [f, text] of [
      ["one.txt", "one"],
      ["two.txt", "two"],
      ["three.txt", "three"],
    ])
      expect(readFileSync(join(sb.cwd, f!), "utf8")).toBe(text);

    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; tool_call_id?: string; output?: string; status?: string });
    const started = events.filter((e) => e.type === "tool.started").map((e) => e.tool_call_id);
    const completed = events.filter((e) => e.type === "tool.completed");
    expect(started).toHaveLength(3);
    expect(new Set(started).size).toBe(3);
    expect(completed.map((e) => e.tool_call_id).sort()).toEqual([...started].sort());
    expect(completed.every((e) => e.status === "ok")).toBe(true);

    // The last request: three results, each the command's own output, none "interrupted".
    const results = Object.values(toolResults(e2e.server.requests.at(-1)!));
    expect(results).toHaveLength(3);
    for (const said of ["wrote one", "wrote two", "wrote three"]) expect(results.join("\n")).toContain(said);
    for (const t of results) expect(t).not.toMatch(/interrupted/i);
  }, 60_000);
});
