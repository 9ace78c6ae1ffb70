// Every key `deerflow run` prints is documented: the keys actually emitted by several runs — a new thread and a
// continued one, a clarification, denied calls, a model failure after the run began, a configuration error before
// any run — in json and stream-json, held against the tables and event sections of docs/events.md (parsed from the
// file). A key added to an output without a row fails here. Also: stream-json's last line is always run.completed.
// In-process (runCli): the process is not the contract here, the printed objects are; the configuration error (a
// command that fails before any run, where a process may exit before it prints) runs the built CLI (spawned).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import type { ScriptedReply } from "../support/openai-server.js";

const e2e = useE2E();
const DOC = readFileSync(fileURLToPath(new URL("../../docs/events.md", import.meta.url)), "utf8");

type Json = Record<string, unknown>;

/** The rows of the markdown table whose header's first cell is `header`: first-cell name → the row's text. */
function table(header: string): Map<string, string> {
  const at = DOC.indexOf(`| ${header} |`);
  expect(at, `docs/events.md has a table headed "${header}"`).toBeGreaterThanOrEqual(0);
  const rows = new Map<string, string>();
  for (const line of DOC.slice(at).split("\n").slice(2)) {
    const m = /^\| `([a-z_]+)` \|(.*)\|$/.exec(line);
    if (!m) break;
    rows.set(m[1]!, m[2]!);
  }
  return rows;
}

/** The text of the section "### `type`" of an event. */
function section(type: string): string {
  const at = DOC.indexOf(`### \`${type}\`\n`);
  if (at < 0) return "";
  const next = DOC.slice(at + 4).search(/^#{2,3} /m);
  return next < 0 ? DOC.slice(at) : DOC.slice(at, at + 4 + next);
}

const mentions = (text: string, key: string) => text.includes(`\`${key}\``) || text.includes(`\`${key}?\``) || new RegExp(`[{, ]${key}\\??[,}]`).test(text);
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** What docs/events.md does not name among the keys a json result printed (its nested objects' keys included). */
function undocumentedResultKeys(result: Json): string[] {
  const rows = table("field");
  const denialRows = table("denial field");
  const missing: string[] = [];
  for (const [key, value] of Object.entries(result)) {
    const row = rows.get(key);
    if (row === undefined) missing.push(key);
    else if (isObject(value)) for (const k of Object.keys(value)) if (!mentions(row, k)) missing.push(`${key}.${k}`);
  }
  for (const d of (result.permission_denials as Json[] | undefined) ?? []) for (const k of Object.keys(d)) if (!denialRows.has(k)) missing.push(`permission_denials[].${k}`);
  return missing;
}

/** The same for one stream-json event, against its section (a denial's keys against the denial table). */
function undocumentedEventKeys(e: Json): string[] {
  const type = String(e.type);
  const text = section(type);
  if (!text) return [type];
  const denialRows = table("denial field");
  const missing = Object.keys(e)
    .filter((k) => k !== "type" && !mentions(text, k))
    .map((k) => `${type}.${k}`);
  const denials = [...((e.permission_denials as Json[] | undefined) ?? []), ...(isObject(e.denial) ? [e.denial] : [])];
  for (const d of denials) for (const k of Object.keys(d)) if (!denialRows.has(k)) missing.push(`${type} denial.${k}`);
  return missing;
}

const parseLines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Json);

interface Case {
  name: string;
  script: ScriptedReply[];
  args?: string[];
  withModel?: boolean;
  /** Run by the built CLI (spawned) rather than in-process. */
  spawned?: boolean;
}

const CLARIFY: ScriptedReply = {
  toolCalls: [{ id: "q1", name: "ask_clarification", args: { question: "Which one?", clarification_type: "approach_choice", context: "two ways", options: ["a", "b"] } }],
};
const DENY: ScriptedReply = {
  toolCalls: [
    { id: "b1", name: "bash", args: { command: "rm -rf / --no-preserve-root" } },
    { id: "h1", name: "bash", args: { command: "git reset --hard HEAD~1" } },
  ],
};

const CASES: Case[] = [
  { name: "success on a new thread", script: [{ content: "hello" }] },
  { name: "a clarification", script: [CLARIFY] },
  { name: "denied calls", script: [DENY, { content: "left alone" }] },
  // 400 is not retried: the run fails at once, after run.started.
  { name: "a model failure after the run began", script: [{ status: 400, error: "bad request" }] },
  { name: "a bad flag combination before any run", script: [], args: ["--thread", "t", "--continue"] },
  { name: "no model configured", script: [], withModel: false, spawned: true },
];

describe("the keys deerflow run prints are documented in docs/events.md", () => {
  const results: Json[] = [];
  const streams: Json[][] = [];

  it("runs each case in json and in stream-json (stream-json always ends with run.completed)", async () => {
    for (const c of CASES) {
      for (const format of ["json", "stream-json"] as const) {
        const sb: Sandbox = e2e.sandbox(c.withModel ?? true);
        e2e.server.setScript([...c.script]);
        const argv = ["run", "--output-format", format, ...(c.args ?? []), "do the thing"];
        const r = c.spawned ? await sb.run(argv) : await runCli(sb, argv);
        expect(r.stdout, `${c.name} (${format}): ${r.stderr}`).not.toBe("");
        if (format === "json") results.push(JSON.parse(r.stdout) as Json);
        else {
          const events = parseLines(r.stdout);
          expect(events.at(-1), `${c.name}: the last line`).toMatchObject({ type: "run.completed" });
          if (r.exitCode !== 0 && r.exitCode !== 3) expect(events.at(-1)).toMatchObject({ status: "error", error: expect.any(String), permission_denials: [] });
          streams.push(events);
        }
      }
    }
    // A continued thread says so.
    const sb = e2e.sandbox();
    e2e.server.setScript([{ content: "one" }, { content: "two" }]);
    const first = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "first"])).stdout) as Json;
    const second = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "--thread", String(first.thread_id), "second"])).stdout) as Json;
    expect([first.new_thread, second.new_thread]).toEqual([true, false]);
    results.push(second);
  }, 300_000);

  it("the json result: every key has a row of the result table (and a denial's keys a row of the denial table)", () => {
    expect(results.length).toBeGreaterThanOrEqual(CASES.length);
    const emitted = new Set(results.flatMap((r) => Object.keys(r)));
    // The runs above reached every kind of result: the check below cannot pass by seeing too little.
    for (const key of ["new_thread", "clarification", "error", "permission_denials", "thread_usage"]) expect(emitted).toContain(key);
    expect(results.some((r) => (r.permission_denials as unknown[]).length === 2)).toBe(true);
    expect([...new Set(results.flatMap(undocumentedResultKeys))], "document these in docs/events.md's tables").toEqual([]);
  });

  it("stream-json: every key of every event is named in its event's section", () => {
    const all = streams.flat();
    expect(all.some((e) => e.type === "tool.completed" && isObject(e.denial))).toBe(true);
    expect(all.some((e) => e.type === "clarification.requested")).toBe(true);
    expect([...new Set(all.flatMap(undocumentedEventKeys))], "document these in docs/events.md").toEqual([]);
  });
});
