// Files the agent presents (present_files) reach the user where they are on this machine, never as the model's
// /mnt/user-data/outputs path: a `files.presented` event in stream-json, `files` in the JSON result, a line on stderr
// in text mode, and `threads show` listing them. The stream-json event and `threads show` are proven through the
// built CLI (spawned); the rest runs in-process (the JSON result's printer is spawned in usage-sources.test.ts).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();

/** The model writes a report into the outputs folder, presents it, and says so. */
function presentReport(): void {
  e2e.server.push(
    { toolCalls: [{ id: "w", name: "write_file", args: { path: "/mnt/user-data/outputs/report.md", content: "# Report\n" } }] },
    { toolCalls: [{ id: "p", name: "present_files", args: { filepaths: ["/mnt/user-data/outputs/report.md"] } }] },
    { content: "The report is ready." },
  );
}

async function threadDir(sb: Sandbox, threadId: string): Promise<string> {
  return join(sb.home, "threads", threadId);
}

describe("presented files", () => {
  it("stream-json: a files.presented event names the file's real path; the JSON result's `files` the same (the event spawned)", async () => {
    const sb = e2e.sandbox();
    presentReport();
    const r = await sb.run(["run", "--output-format", "stream-json", "write the report"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const presented = events.filter((e) => e.type === "files.presented");
    expect(presented).toHaveLength(1);
    const [file] = presented[0].files as string[];
    expect(file).not.toMatch(/^\/mnt\//);
    expect(file).toBe(join(await threadDir(sb, events[0].thread_id), "outputs", "report.md"));
    expect(readFileSync(file!, "utf8")).toBe("# Report\n");

    presentReport();
    const json = JSON.parse((await runCli(sb, ["run", "--thread", events[0].thread_id, "--output-format", "json", "again"])).stdout);
    expect(json.files).toEqual([file]);
    // A run that presents nothing says so with an empty list.
    e2e.server.push({ content: "nothing to show" });
    const none = JSON.parse((await runCli(sb, ["run", "--thread", events[0].thread_id, "--output-format", "json", "hello"])).stdout);
    expect(none.files).toEqual([]);
  });

  it("text mode prints the real path on stderr; `threads show` lists the thread's presented files (spawned CLI)", async () => {
    const sb = e2e.sandbox();
    presentReport();
    const r = await runCli(sb, ["run", "write the report"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("The report is ready.\n");
    const threadId = /new thread (\w+)/.exec(r.stderr)![1]!;
    const file = join(await threadDir(sb, threadId), "outputs", "report.md");
    expect(existsSync(file)).toBe(true);
    expect(r.stderr).toContain(`deerflow: presented file: ${file}\n`);

    const shown = await sb.run(["threads", "show", threadId]);
    expect(shown.stdout).toContain(`  presented files:\n    ${file}\n`);
    const json = JSON.parse((await runCli(sb, ["threads", "show", "--json", threadId])).stdout);
    expect(json.files).toEqual([file]);
  });

  it("a name with terminal escapes or a right-to-left override is shown quoted, as the file it really is (the eleventh pass's L2)", async () => {
    const sb = e2e.sandbox();
    const name = "r\u001b]0;PWNED\u0007\u001b[2Je\u202eport.md";
    e2e.server.push(
      // The file tools never create such a name (A24-11); a program can, and presenting it must still be safe.
      { toolCalls: [{ id: "w", name: "write_file", args: { path: `/mnt/user-data/outputs/${name}`, content: "# Report\n" } }] },
      { toolCalls: [{ id: "b", name: "bash", args: { command: "printf '# Report\\n' > $'/mnt/user-data/outputs/r\\e]0;PWNED\\a\\e[2Je\\342\\200\\256port.md'" } }] },
      { toolCalls: [{ id: "p", name: "present_files", args: { filepaths: [`/mnt/user-data/outputs/${name}`] } }] },
      { content: "ready" },
    );
    const r = await runCli(sb, ["run", "--yes", "write the report"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.stringify(e2e.server.requests[1])).toContain("control character");
    const line = /deerflow: presented file: (.*)\n/.exec(r.stderr)![1]!;
    expect(line).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(line).toContain("\\u202e");
    const shown = JSON.parse(line.replace(/\\u003c/g, "<")) as string;
    expect(shown.endsWith(`/outputs/${name}`)).toBe(true);
    expect(readFileSync(shown, "utf8")).toBe("# Report\n");
  });
});
