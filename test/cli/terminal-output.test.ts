// What deerflow prints to a terminal carries no escape sequences (a hostile answer or thread title could clear the
// screen, retitle the window or write the clipboard with OSC 52) and no credentials inside URLs.
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();
// Clear screen, cursor home, an OSC 52 clipboard write, a window title, a bell, an 8-bit CSI.
const HOSTILE = "\u001b[2J\u001b[Hhello\u001b]52;c;cm0gLXJmIH4=\u0007 world\u001b]0;pwned\u0007\u0007\u009b31m!";
const ESC = /[\u001b\u0007\u009b]/;
// Bidi controls: a right-to-left override makes "evil\u202Etxt.sh" read "evilhs.txt" on screen (Trojan Source).
const BIDI = "\u202aa\u202bb\u202cc\u202dd\u202ee\u2066f\u2067g\u2068h\u2069i\u200ej\u200fk\u061c";
const BIDI_RE = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe("terminal-safe output", () => {
  it("run (text mode) and threads strip escape sequences from the answer and the title", async () => {
    const sb = e2e.sandbox();
    e2e.server.titleReply = { content: `Title ${HOSTILE}` };
    e2e.server.push({ content: `Answer: ${HOSTILE} ${BIDI}` });
    const r = await sb.run(["run", "say hi"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Answer: hello world! abcdefghijk");
    expect(r.stdout).not.toMatch(ESC);
    expect(r.stderr).not.toMatch(ESC);
    expect(r.stdout).not.toMatch(BIDI_RE);
    const threads = await sb.run(["threads"]);
    expect(threads.stdout).toContain("Title hello world");
    expect(threads.stdout).not.toMatch(ESC);
  });

  it("json, stream-json and threads --json escape what a terminal would act on or not draw; a parser reads it back (A41a-3)", async () => {
    const sb = e2e.sandbox();
    // 8-bit OSC 52 and CSI, NEL, bidi, zero-width, a tag character, a line separator: JSON.stringify leaves them raw.
    const c1 = "A\u009d52;c;cHduZWQ=\u009cB \u009b2J \u0085N \u202eR \u2066I \u200bZ \u{e0041}T \u2028L";
    const RAW = /[\u007f-\u009f\u2028\u202e\u2066\u200b\u{e0041}]/u;
    e2e.server.titleReply = { content: `Title ${c1}` };
    e2e.server.push({ content: c1 });
    const stream = await sb.run(["run", "--output-format", "stream-json", "say hi"]);
    expect(stream.exitCode).toBe(0);
    expect(stream.stdout).not.toMatch(RAW);
    const done = stream.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((e) => e.type === "run.completed");
    expect(done.final_text).toBe(c1);
    e2e.server.push({ content: c1 });
    const json = await sb.run(["run", "--output-format", "json", "say hi"]);
    expect(json.stdout).not.toMatch(RAW);
    expect(JSON.parse(json.stdout).final_text).toBe(c1);
    const threads = await sb.run(["threads", "--json"]);
    expect(threads.stdout).not.toMatch(RAW);
    expect(threads.stdout).toContain("\\u009d52;c;");
  });

  it("config, doctor and error lines mask a password inside OPENAI_BASE_URL", async () => {
    const sb = e2e.sandbox();
    const url = new URL(e2e.server.url);
    const withPassword = `${url.protocol}//alice:hunter2-secret@${url.host}${url.pathname}`;
    const env = { OPENAI_BASE_URL: withPassword };
    const config = await sb.run(["config"], { env });
    expect(config.stdout).toContain("alice:****@");
    const json = await sb.run(["config", "--json"], { env });
    expect(json.stdout).toContain("alice:****@");
    const doctor = await sb.run(["doctor"], { env });
    expect(doctor.stdout).toContain("alice:****@");
    // Credentials in the URL are refused up front (fetch would refuse them anyway): the error line names it, masked.
    const dead = await sb.run(["run", "hi"], { env: { OPENAI_BASE_URL: "http://bob:pw-123@127.0.0.1:9/v1" }, timeoutMs: 120_000 });
    expect(dead.exitCode).toBe(2);
    expect(dead.stderr).toContain("bob:****@");
    for (const out of [config.stdout, json.stdout, doctor.stdout, dead.stdout, dead.stderr]) {
      expect(out).not.toContain("hunter2-secret");
      expect(out).not.toContain("pw-123");
    }
  });
});
