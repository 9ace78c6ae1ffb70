// Set-up from anywhere: the packed package (what `npm pack` ships) installed as a global command runs from a folder
// outside the clone with a fresh HOME; and with only a key and/or base URL (no model) `run` names the endpoint's
// models in one line, exit 2.
//
// The tarball is unpacked where `npm install -g --prefix <p>` puts it (<p>/lib/node_modules/deerflow, <p>/bin/deerflow;
// why by hand: test/support/packed.ts). What is proven: the packed file list is complete and the command works
// outside the clone.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { ROOT, packTarball, unpackInto } from "../support/packed.js";
import { listThreads } from "../support/requests.js";

const e2e = useE2E();
const tmp = mkdtempSync(join(tmpdir(), "deerflow-setup-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The packed package laid out as a global install under `prefix`; returns its `bin/deerflow`. */
async function installPacked(prefix: string): Promise<string> {
  await unpackInto(await packTarball(tmp), join(prefix, "lib", "node_modules", "deerflow"));
  mkdirSync(join(prefix, "bin"));
  symlinkSync(join("..", "lib", "node_modules", "deerflow", "bin", "deerflow"), join(prefix, "bin", "deerflow"));
  return join(prefix, "bin", "deerflow");
}

describe("set-up from anywhere", () => {
  it("the packed command answers --version and runs in another folder with a fresh HOME (that folder is its workspace)", async () => {
    const bin = await installPacked(join(tmp, "prefix"));
    const home = join(tmp, "fresh-home");
    const project = join(home, "elsewhere", "project");
    mkdirSync(project, { recursive: true });
    const env = { PATH: `${join(tmp, "prefix", "bin")}:${process.env.PATH}`, HOME: home, NO_COLOR: "1", DEERFLOW_DISCOVER_PORTS: "none" };
    const version = await execa("deerflow", ["--version"], { cwd: project, env, extendEnv: false, reject: false });
    expect(version.exitCode, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
    expect(realpathSync(bin)).not.toContain(ROOT); // not the clone's own bin/

    e2e.server.push({ content: "Hello from anywhere." });
    const modelEnv = { ...env, OPENAI_BASE_URL: e2e.server.url, OPENAI_API_KEY: "sk-test-key-123456", DEERFLOW_MODEL: "test-model" };
    const r = await execa("deerflow", ["run", "--output-format", "json", "hi"], { cwd: project, env: modelEnv, extendEnv: false, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).final_text).toBe("Hello from anywhere.");
    // Its data went to the fresh HOME's ~/.deerflow, and the thread works in the folder it was started in.
    const threads = await execa("deerflow", ["threads", "--json"], { cwd: project, env, extendEnv: false });
    expect(JSON.parse(threads.stdout)[0].workspace).toBe(realpathSync(project));
    expect(existsSync(join(home, ".deerflow", "deerflow.sqlite"))).toBe(true);
  }, 120_000);
});

describe("a key and/or base URL but no model", () => {
  it("run names the endpoint's models in one line (asked with the key) and exits 2 without a chat request", async () => {
    const sb = e2e.sandbox(false);
    e2e.server.modelIds = ["alpha-coder", "beta-chat"];
    const r = await sb.run(["run", "hi"], { env: { OPENAI_BASE_URL: e2e.server.url, OPENAI_API_KEY: "sk-listing-key-42" } });
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `deerflow: No model configured; ${e2e.server.url} (alpha-coder, beta-chat) serves: pick one with -m <id> or DEERFLOW_MODEL=alpha-coder (or "defaultModel" in ~/.deerflowrc).`,
    );
    expect(e2e.server.modelListAuth).toEqual(["Bearer sk-listing-key-42"]);
    expect(e2e.server.requests).toHaveLength(0);
    expect(await listThreads(sb).catch(() => [])).toEqual([]);
  });

  it("a base URL alone is listed too; the named model then works", async () => {
    const sb = e2e.sandbox(false);
    e2e.server.modelIds = ["only-model"];
    const env = { OPENAI_BASE_URL: e2e.server.url };
    const r = await sb.run(["run", "hi"], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("(only-model) serves: pick one with -m <id> or DEERFLOW_MODEL=only-model");
    expect(e2e.server.modelListAuth).toEqual([""]);
    e2e.server.push({ content: "Picked." });
    const ok = await sb.run(["run", "-m", "only-model", "hi"], { env });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout).toBe("Picked.\n");
    expect(e2e.server.requests[0]!.body.model).toBe("only-model");
  });

  it("nothing configured: the usual hint saying what to set, no request anywhere", async () => {
    const sb = e2e.sandbox(false);
    const r = await sb.run(["run", "hi"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^deerflow: No model configured\. Set DEERFLOW_MODEL/);
    expect(e2e.server.modelListAuth).toEqual([]);
  });
});
