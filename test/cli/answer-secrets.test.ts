// A key in the model's OWN answer (repeated from a file it read, or made up in a key's shape) is masked wherever the
// answer goes: the streamed pieces and the final text of stream-json, the printed answer, `threads show`, and the
// thread's database (which outlives the run). The key arrives split across stream chunks, as a real stream sends it.
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();
const OPENAI_KEY = "sk-proj-Zq8Lm2Vx7Tn4Rb9Kc1Hd6Pw3";
const GH_TOKEN = "ghp_Q7w9E2r4T6y8U1i3O5p7A9s2D4f6G8h0J2k4";
const chunk = (content: string | undefined, finish: string | null = null) => ({
  id: "c1",
  object: "chat.completion.chunk",
  created: 1,
  model: "test-model",
  choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }],
});
const TEXT = `Found them: ${OPENAI_KEY} and ${GH_TOKEN}. Rotate both.`;
// Cut inside each secret: "sk-pr" | "oj-Zq8…", "ghp_Q7w9" | "E2r4…".
const PIECES = [TEXT.slice(0, 17), TEXT.slice(17, 30), TEXT.slice(30, TEXT.indexOf("ghp_") + 8), TEXT.slice(TEXT.indexOf("ghp_") + 8)];
const reply = () => ({ raw: [...PIECES.map((p) => `data: ${JSON.stringify(chunk(p))}\n\n`), `data: ${JSON.stringify(chunk(undefined, "stop"))}\n\n`, "data: [DONE]\n\n"] });

function noSecret(where: string, text: string): void {
  expect(text, where).not.toContain(OPENAI_KEY);
  expect(text, where).not.toContain(GH_TOKEN);
  expect(text, where).not.toMatch(/Zq8Lm2Vx7Tn4|E2r4T6y8U1i3/);
}

describe("secrets in the model's own answer", () => {
  it("are masked in the stream, the result, the printed answer, threads show and the database", async () => {
    const sb = e2e.sandbox();
    expect(PIECES.join("")).toBe(TEXT);
    e2e.server.push(reply());
    const r = await sb.run(["run", "--output-format", "stream-json", "what keys are in the env file?"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; text?: string; final_text?: string; thread_id?: string });
    const streamed = events
      .filter((e) => e.type === "message.delta")
      .map((e) => e.text)
      .join("");
    expect(streamed).toBe("Found them: *** and ***. Rotate both.");
    const done = events.find((e) => e.type === "run.completed")!;
    expect(done.final_text).toBe("Found them: *** and ***. Rotate both.");
    noSecret("stream-json", r.stdout);
    const thread = events.find((e) => e.type === "run.started")!.thread_id!;

    e2e.server.push(reply());
    const text = await sb.run(["run", "--thread", thread, "again, plainly"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toBe("Found them: *** and ***. Rotate both.\n");

    const show = await sb.run(["threads", "show", thread]);
    expect(show.stdout).toContain("Found them: ***");
    noSecret("threads show", show.stdout);
    const stored = ["deerflow.sqlite", "deerflow.sqlite-wal"]
      .map((f) => join(sb.home, f))
      .filter(existsSync)
      .map((p) => readFileSync(p).toString("latin1"))
      .join("");
    expect(stored).toContain("Rotate both."); // the answer is there, as text a search would find
    noSecret("the database", stored);
    // The model still gets a usable history: its earlier answer, masked.
    expect(JSON.stringify(e2e.server.requests.at(-1)!.body.messages)).toContain("Found them: ***");
  });

  it("are masked in tool.started's arguments (the key in the environment and a key's shape); the tool still gets them", async () => {
    const sb = e2e.sandbox();
    const envKey = sb.env.OPENAI_API_KEY!;
    const command = `echo ${envKey} ${GH_TOKEN} > keys.txt`;
    e2e.server.push({ toolCalls: [{ id: "k", name: "bash", args: { command } }] }, { content: "saved" });
    const r = await runCli(sb, ["run", "--yes", "--output-format", "stream-json", "save the keys"], { env: { OPENAI_API_KEY: envKey } });
    expect(r.exitCode, r.stderr).toBe(0);
    const started = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; args?: { command?: string } })
      .find((e) => e.type === "tool.started")!;
    expect(started.args!.command).toBe("echo *** *** > keys.txt");
    noSecret("tool.started", r.stdout);
    expect(r.stdout).not.toContain(envKey);
    expect(readFileSync(join(sb.cwd, "keys.txt"), "utf8")).toBe(`${envKey} ${GH_TOKEN}\n`);
  });

  it("a gateway key without a key's shape, and a token split by a zero-width character, are masked too; threads show masks what the user typed (A28c-1/2/3)", async () => {
    const sb = e2e.sandbox();
    const gateway = "Zx9Kq2Lm7Vt4Rb8Nc3Hd6Pw1Yj5Qa0";
    const env = { OPENAI_API_KEY: gateway };
    const answer = `Your key is ${gateway}; the token is ghp\u200b_${GH_TOKEN.slice(4)}.`;
    e2e.server.push({ content: answer }, { content: answer });
    const json = await runCli(sb, ["run", "--output-format", "stream-json", `keep gho_${GH_TOKEN.slice(4)} for later`], { env });
    expect(json.exitCode, json.stderr).toBe(0);
    const done = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; final_text?: string; thread_id?: string })
      .find((e) => e.type === "run.completed")!;
    expect(done.final_text).toBe("Your key is ***; the token is ***.");
    const text = await runCli(sb, ["run", "--thread", done.thread_id!, "again"], { env });
    expect(text.stdout).toBe("Your key is ***; the token is ***.\n");
    const show = await runCli(sb, ["threads", "show", done.thread_id!], { env });
    const showJson = await runCli(sb, ["threads", "show", "--json", done.thread_id!], { env });
    for (const [where, out] of [
      ["stream-json", json.stdout],
      ["text", text.stdout],
      ["threads show", show.stdout],
      ["threads show --json", showJson.stdout],
    ] as const) {
      expect(out, where).not.toContain(gateway);
      expect(out.replace(/\u200b/g, ""), where).not.toContain(GH_TOKEN.slice(4));
    }
    expect(show.stdout).toContain("> keep *** for later");
  });
});
