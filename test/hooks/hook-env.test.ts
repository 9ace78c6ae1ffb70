// A hook runs on the host in the project, where the agent's sandbox may have written the program it starts (the
// fourteenth pass's H2: `npx prettier` ran a planted node_modules/.bin/prettier with deerflow's API key). A hook gets
// the sandbox's scrubbed environment and a PATH without the project's folders, even spelled through a link. Real
// `sh` hooks, in-process through runHooks.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ResolvedHook } from "../../src/config/hooks-config.js";
import { loadConfig } from "../../src/config/load.js";
import { runHooks } from "../../src/hooks/run-hooks.js";
import { submitPrompt } from "../../src/runtime/prompt-hooks.js";

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

const hook = (command: string): ResolvedHook => ({ event: "PostToolUse", matcher: "", command, timeoutSeconds: 30, file: "/home/u/.deerflowrc" });

describe("a hook's environment", () => {
  it("holds none of deerflow's credentials, keeps the rest and passEnv's names, and says the project folder", async () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), "df-hookenv-")));
    process.env.OPENAI_API_KEY = "sk-test-key-123456789";
    process.env.GITHUB_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    process.env.SOME_SETTING = "uses the key sk-configured-key-0987654321 inside";
    process.env.MY_PASSED_TOKEN = "kept-because-listed";
    process.env.PLAIN = "plain value";
    const out = join(project, "env.txt");
    const setup = { hooks: [hook(`env > ${out}`)], cwd: project, secretValues: ["sk-configured-key-0987654321"], passEnv: ["MY_PASSED_TOKEN"] };
    await runHooks(setup, "PostToolUse", { tool_name: "write_file" }, { tool: "write_file" });
    const env = readFileSync(out, "utf8");
    expect(env).not.toContain("sk-test-key");
    expect(env).not.toContain("ghp_");
    expect(env).not.toContain("sk-configured-key");
    expect(env).toContain("MY_PASSED_TOKEN=kept-because-listed");
    expect(env).toContain("PLAIN=plain value");
    expect(env).toContain(`DEERFLOW_PROJECT_DIR=${project}`);
  });

  it("is the same for a UserPromptSubmit hook: the configured key is left out by value, passEnv's names kept", async () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), "df-hookenv-")));
    const home = join(project, "home");
    mkdirSync(home);
    const out = join(project, "prompt-env.txt");
    const rc = { apiKey: "sk-configured-key-0987654321", sandbox: { passEnv: ["MY_PASSED_TOKEN"] }, hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `env > ${out}` }] }] } };
    writeFileSync(join(home, ".deerflowrc"), JSON.stringify(rc));
    const env = { PATH: process.env.PATH, HOME: home, DEERFLOW_MODEL: "m", SOME_SETTING: "sk-configured-key-0987654321", MY_PASSED_TOKEN: "kept-because-listed" };
    Object.assign(process.env, env);
    await submitPrompt(loadConfig({ env, cwd: project, userHome: home }), "hello");
    const seen = readFileSync(out, "utf8");
    expect(seen).not.toContain("sk-configured-key");
    expect(seen).toContain("MY_PASSED_TOKEN=kept-because-listed");
  });

  it("resolves programs on a PATH without the project's folders, also named through a link: a planted program never runs", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "df-hookpath-")));
    const project = join(root, "project");
    const bin = join(project, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    const marker = join(root, "planted-ran");
    writeFileSync(join(bin, "prettier"), `#!/bin/sh\necho "$OPENAI_API_KEY" > ${marker}\n`);
    chmodSync(join(bin, "prettier"), 0o755);
    symlinkSync(project, join(root, "lp")); // direnv's PATH_add writes the logical path
    process.env.OPENAI_API_KEY = "sk-test-key-123456789";
    process.env.PATH = [join(root, "lp", "node_modules", ".bin"), "./node_modules/.bin", "/usr/bin", "/bin"].join(":");
    const setup = { hooks: [hook("prettier --write x.js; echo status=$? >&2; exit 0")], cwd: project };
    const reports: string[] = [];
    await runHooks({ ...setup, onReport: (r) => reports.push(r.status) }, "PostToolUse", {}, { tool: "write_file" });
    expect(reports).toEqual(["ok"]);
    expect(() => readFileSync(marker)).toThrow();
  });
});
