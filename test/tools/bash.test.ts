import { mkdtempSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capOutput, createBashTool, isSecretEnvName, scrubEnv } from "../../src/tools/bash.js";

const ws = realpathSync(mkdtempSync(join(tmpdir(), "deerflow-bash-")));
const rt = (extra: Record<string, unknown> = {}) => ({ state: { thread_data: { workspace_path: ws } }, ...extra }) as never;

/** pids whose command line contains `marker` (scans /proc; excludes this test process). */
function pidsWith(marker: string): number[] {
  const found: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      if (cmd.includes(marker) && !/\) Z /.test(stat)) found.push(Number(d));
    } catch {
      // gone
    }
  }
  return found;
}

async function waitGone(marker: string, ms = 5000): Promise<number[]> {
  const end = Date.now() + ms;
  let left = pidsWith(marker);
  while (left.length > 0 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    left = pidsWith(marker);
  }
  return left;
}

const saved: Record<string, string | undefined> = {};
const SECRETS = { FOO_API_KEY: "sek1", OPENAI_API_KEY: "sek2", GITHUB_TOKEN: "sek3", DB_PASSWORD: "sek4", DEERFLOW_MODEL_KEY: "sek5", AWS_SECRET_ACCESS_KEY: "sek6" };
beforeAll(() => {
  for (const [k, v] of Object.entries(SECRETS)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  process.env.DEERFLOW_TEST_PLAIN = "plain";
});
afterAll(() => {
  for (const k of Object.keys(SECRETS)) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  delete process.env.DEERFLOW_TEST_PLAIN;
});

describe("bash tool", () => {
  const bash = createBashTool();

  it("has the SPEC name and argument names (description first)", () => {
    expect(bash.name).toBe("bash");
    expect(Object.keys((bash.schema as { shape: object }).shape)).toEqual(["description", "command", "run_in_background"]);
  });

  it("runs in the thread's workspace", async () => {
    expect(await bash.invoke({ command: "pwd" }, rt())).toBe(ws);
  });

  it("refuses to run without a workspace in the state", async () => {
    await expect(bash.invoke({ command: "pwd" })).rejects.toThrow(/no workspace/);
  });

  it("interleaves stdout and stderr and reports a non-zero exit code", async () => {
    const out = await bash.invoke({ command: "echo out; echo err >&2; exit 3" }, rt());
    expect(out).toBe("out\nerr\nexit code 3");
    expect(await bash.invoke({ command: "true" }, rt())).toBe("(no output)");
  });

  it("caps the output, keeping head and tail with a note", async () => {
    const small = createBashTool({ maxOutputChars: 1000 });
    const out = String(await small.invoke({ command: "echo HEAD; seq 1 20000; echo TAIL" }, rt()));
    expect(out.length).toBeLessThanOrEqual(1000);
    expect(out.startsWith("HEAD\n1\n2\n")).toBe(true);
    expect(out.endsWith("19999\n20000\nTAIL")).toBe(true);
    expect(out).toMatch(/\n\[\.\.\. \d+ characters cut \.\.\.\]\n/);
    const full = "HEAD\n" + Array.from({ length: 20000 }, (_, i) => i + 1).join("\n") + "\nTAIL";
    const cut = Number(/\[\.\.\. (\d+) characters cut/.exec(out)![1]);
    expect(out.length - /\n\[.*\]\n/.exec(out)![0].length + cut).toBe(full.length);
  });

  it("capOutput leaves short text alone", () => {
    expect(capOutput("abc", 10)).toBe("abc");
    expect(capOutput("x".repeat(100), 60).length).toBe(60);
  });

  it("scrubs secret-looking variables but keeps the rest (PATH, HOME)", async () => {
    const out = String(await bash.invoke({ command: "env" }, rt()));
    for (const [k, v] of Object.entries(SECRETS)) {
      expect(out).not.toContain(`${k}=`);
      expect(out).not.toContain(v);
    }
    expect(out).toMatch(/^PATH=/m);
    expect(out).toMatch(/^HOME=/m);
    expect(out).not.toContain("DEERFLOW_TEST_PLAIN");
    expect(isSecretEnvName("PWD")).toBe(false);
    expect(isSecretEnvName("TERM")).toBe(false);
    expect(isSecretEnvName("SSH_AUTH_SOCK")).toBe(false);
    expect(isSecretEnvName("HF_TOKEN")).toBe(true);
    expect(scrubEnv({ A: "1", X_SECRET: "2" })).toEqual({ A: "1" });
  });

  it("a timeout kills the whole process group, background grandchildren included", async () => {
    const marker = `dfmark-timeout-${process.pid}-${Date.now()}`;
    const quick = createBashTool({ timeoutSeconds: 1 });
    const t0 = Date.now();
    const out = await quick.invoke({ command: `echo started; (exec -a ${marker} sleep 300) & (trap '' TERM; exec -a ${marker} sleep 301) & exec -a ${marker} sleep 302` }, rt({ toolCallId: "tc1" }));
    const elapsed = Date.now() - t0;
    expect(ToolMessage.isInstance(out)).toBe(true);
    const msg = out as unknown as ToolMessage;
    expect(msg.status).toBe("error");
    expect(msg.tool_call_id).toBe("tc1");
    expect(String(msg.content)).toMatch(/timed out after 1 s; its process group was killed/);
    expect(String(msg.content)).toContain("started");
    expect(elapsed).toBeLessThan(60_000); // far short of the 300 s sleeps, generous under load
    expect(await waitGone(marker)).toEqual([]);
  }, 90_000);

  it("cancellation (AbortSignal) kills the whole process group and rejects", async () => {
    const marker = `dfmark-abort-${process.pid}-${Date.now()}`;
    const ac = new AbortController();
    const run = bash.invoke({ command: `(exec -a ${marker} sleep 300) & exec -a ${marker} sleep 303` }, rt({ signal: ac.signal }));
    const end = Date.now() + 5000;
    while (pidsWith(marker).length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    expect(pidsWith(marker).length).toBe(2);
    ac.abort();
    await expect(run).rejects.toThrow();
    expect(await waitGone(marker)).toEqual([]);
  }, 15_000);
});
