// A workspace that contains a folder the sandbox hides (`-w ~/.config` holds ~/.config/gh; `-w ~/.cache` holds
// deerflow's code cache): the file tools run on the host, and must hide it as bash's sandbox does (the twenty-third
// pass's A23-11 read a gh token through read_file and grep; A23-10 rewrote the code cache's signing key).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ThreadPaths } from "../../src/sandbox/provider.js";
import { createFileTools, resetReadRecords } from "../../src/tools/file-tools.js";
import { call, makeRoot, makeThread, textOf } from "./helpers.js";

const [ls, , grep, readFile, writeFile] = createFileTools();
const saved = { HOME: process.env.HOME, DEERFLOW_CACHE_DIR: process.env.DEERFLOW_CACHE_DIR };
let home: string;
let root: string;

beforeEach(() => {
  root = makeRoot("deerflow-home-secrets-");
  home = join(root, "home");
  mkdirSync(join(home, ".config", "gh"), { recursive: true });
  writeFileSync(join(home, ".config", "gh", "hosts.yml"), "oauth_token: CANARY-GH\n");
  mkdirSync(join(home, ".config", "gcloud"), { recursive: true });
  writeFileSync(join(home, ".config", "gcloud", "credentials.db"), "CANARY-GCLOUD\n");
  writeFileSync(join(home, ".config", "app.conf"), "CANARY-PLAIN is fine\n");
  mkdirSync(join(home, ".cache", "deerflow"), { recursive: true });
  writeFileSync(join(home, ".cache", "deerflow", "code-cache.key"), "KEY");
  process.env.HOME = home;
  delete process.env.DEERFLOW_CACHE_DIR;
  resetReadRecords();
});
afterEach(() => Object.assign(process.env, saved));

function workspaceAt(dir: string): ThreadPaths {
  return { ...makeThread(root, "T"), workspace_path: dir };
}

describe("file tools in a workspace that holds a hidden folder", () => {
  it("-w ~/.config: read_file and grep never show gh or gcloud; the rest of the folder works", async () => {
    const M = workspaceAt(join(home, ".config"));
    await expect(call(readFile, { path: "gh/hosts.yml" }, M)).rejects.toThrow(/where credentials are kept/);
    const found = textOf(await call(grep, { pattern: "CANARY" }, M));
    expect(found).toContain("CANARY-PLAIN");
    expect(found).not.toMatch(/CANARY-GH|CANARY-GCLOUD/);
    expect(textOf(await call(readFile, { path: "app.conf" }, M))).toContain("CANARY-PLAIN");
    expect(textOf(await call(ls, { path: "." }, M))).not.toMatch(/\bgh\b|gcloud/);
  });

  it("-w ~/.cache: deerflow's code cache is neither readable nor writable", async () => {
    const M = workspaceAt(join(home, ".cache"));
    await expect(call(writeFile, { path: "deerflow/code-cache.key", content: "AAAA" }, M)).rejects.toThrow(/where credentials are kept/);
    expect(readFileSync(join(home, ".cache", "deerflow", "code-cache.key"), "utf8")).toBe("KEY");
  });
});
