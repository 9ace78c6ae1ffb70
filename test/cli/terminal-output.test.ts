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
