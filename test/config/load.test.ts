import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseJsonc } from "../../src/config/jsonc.js";
import { loadConfig, maskSecret, readConfigFile, requireModel } from "../../src/config/load.js";
import { ConfigError } from "../../src/errors.js";
import { fileConfigSchema, modelConfigSchema } from "../../src/config/schema.js";
import { trustFolder } from "../../src/config/trust-store.js";

let root: string;
let userHome: string;
let cwd: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "deerflow-config-"));
  userHome = join(root, "home");
  cwd = join(userHome, "work", "repo");
  mkdirSync(cwd, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const load = (env: Record<string, string> = {}, flags = {}) => loadConfig({ cwd, env, userHome, flags });

/** Writes a project file and trusts its folder as `deerflow trust` would (the default data home records it). */
function writeTrusted(path: string, text: string): void {
  writeFileSync(path, text);
  trustFolder(join(userHome, ".deerflow"), path);
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("config discovery and precedence", () => {
  it("works with only environment variables", () => {
    const c = load({ DEERFLOW_MODEL: "gpt-x", OPENAI_API_KEY: "sk-abc", OPENAI_BASE_URL: "http://127.0.0.1:9/v1/" });
    expect(c.files).toEqual([]);
    expect(c.model).toMatchObject({ name: "gpt-x", model: "gpt-x", baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-abc", timeoutMs: 120_000 });
    expect(c.home).toBe(join(userHome, ".deerflow"));
    expect(c.checkpoint).toEqual({ channelMode: "delta", explicitMode: false, snapshotFrequency: 20 });
  });

  it("merges ~/.deerflowrc under the nearest project file found upwards", () => {
    writeFileSync(join(userHome, ".deerflowrc"), JSON.stringify({ apiKey: "sk-user", models: { a: { model: "ma" }, b: { model: "mb" } }, defaultModel: "a" }));
    writeTrusted(join(userHome, "work", ".deerflowrc"), JSON.stringify({ defaultModel: "b", models: { b: { model: "mb2", temperature: 0.1 } } }));
    const c = load();
    expect(c.files).toEqual([join(userHome, ".deerflowrc"), join(userHome, "work", ".deerflowrc")]);
    expect(c.model).toMatchObject({ name: "b", model: "mb2", temperature: 0.1, apiKey: "sk-user" });
    expect(Object.keys(c.models).sort()).toEqual(["a", "b"]);
  });

  it("environment overrides the file; flags override both", () => {
    writeTrusted(join(cwd, ".deerflowrc"), JSON.stringify({ models: { a: { model: "ma" }, b: { model: "mb" } }, defaultModel: "a", home: "data", checkpoint: { channelMode: "delta" } }));
    expect(load().home).toBe(join(cwd, "data"));
    expect(load().checkpoint.channelMode).toBe("delta");
    expect(load({ DEERFLOW_CHECKPOINT_MODE: "full" }).checkpoint.channelMode).toBe("full");
    expect(load({ DEERFLOW_MODEL: "b" }).model?.model).toBe("mb");
    expect(load({ DEERFLOW_MODEL: "b" }, { model: "a" }).model?.model).toBe("ma");
    expect(load({ DEERFLOW_HOME: "/env/home" }).home).toBe("/env/home");
    expect(load({ DEERFLOW_HOME: "/env/home" }, { home: "/flag/home" }).home).toBe("/flag/home");
  });

  it("a single model is the default; a per-model baseUrl wins over OPENAI_BASE_URL", () => {
    writeTrusted(join(cwd, ".deerflowrc"), JSON.stringify({ models: { local: { model: "q", baseUrl: "http://localhost:11434/v1" } } }));
    const c = load({ OPENAI_BASE_URL: "http://elsewhere/v1" });
    expect(c.model).toMatchObject({ name: "local", baseUrl: "http://localhost:11434/v1", apiKey: undefined });
    expect(requireModel(c).name).toBe("local");
  });
});

describe("config errors name the file, the key path and what was expected", () => {
  it("wrong type", () => {
    const rc = join(cwd, ".deerflowrc");
    writeFileSync(rc, JSON.stringify({ models: { m: { model: "x", timeout: -1 } } }));
    const e = configError(() => load());
    expect(e.file).toBe(rc);
    expect(e.keyPath).toBe("models.m.timeout");
    expect(e.message).toContain(rc);
    expect(e.exitCode).toBe(2);
    // Past a day (Node's timers hold 2^31 ms): an error, not a timer that fires at once (A43a-3).
    writeFileSync(rc, JSON.stringify({ models: { m: { model: "x", timeout: 3_000_000 } } }));
    expect(configError(() => load()).keyPath).toBe("models.m.timeout");
    writeFileSync(rc, JSON.stringify({ mcp: { startupTimeout: 3_000_000_000 } }));
    expect(configError(() => load()).keyPath).toBe("mcp.startupTimeout");
  });

  it("unknown key, bad JSON, bad enum, dangling defaultModel, unset $ENV, bad env mode", () => {
    const rc = join(cwd, ".deerflowrc");
    writeFileSync(rc, JSON.stringify({ checkpoint: { channelMode: "delta", snapshotFreq: 3 } }));
    expect(configError(() => load()).keyPath).toBe("checkpoint.snapshotFreq");
    writeFileSync(rc, '{ "models": { ');
    expect(configError(() => load()).message).toMatch(/not valid JSON/);
    writeFileSync(rc, JSON.stringify({ checkpoint: { channelMode: "partial" } }));
    expect(configError(() => load()).keyPath).toBe("checkpoint.channelMode");
    writeTrusted(rc, JSON.stringify({ defaultModel: "nope", models: { a: { model: "x" } } }));
    expect(configError(() => load()).message).toMatch(/"nope" is not one of the configured models \(a\)/);
    // A key is read where it would be sent: the user's own file's key goes to the user's endpoint.
    writeFileSync(rc, "{}");
    writeFileSync(join(userHome, ".deerflowrc"), JSON.stringify({ models: { a: { model: "x", apiKey: "$NOT_SET_ANYWHERE" } } }));
    const unset = configError(() => load());
    expect(unset.keyPath).toBe("models.a.apiKey");
    expect(unset.message).toContain("NOT_SET_ANYWHERE");
    rmSync(join(userHome, ".deerflowrc"));
    expect(configError(() => load({ DEERFLOW_CHECKPOINT_MODE: "fast" })).message).toMatch(/"full" or "delta"/);
  });

  it("guards: defaults, overrides, and a warn threshold that is not below its stop is refused", () => {
    expect(load().guards).toEqual({ loopWarn: 3, loopStop: 5, toolCallWarn: 30, toolCallStop: 50, tokenBudget: 200_000 });
    const rc = join(cwd, ".deerflowrc");
    writeTrusted(rc, JSON.stringify({ guards: { loopWarn: 2, loopStop: 3, tokenBudget: 5000 } }));
    expect(load().guards).toMatchObject({ loopWarn: 2, loopStop: 3, tokenBudget: 5000 });
    writeTrusted(rc, JSON.stringify({ guards: { loopWarn: 6 } }));
    const e = configError(() => load());
    expect(e.keyPath).toBe("guards.loopWarn");
    expect(e.message).toContain(rc);
  });

  it("no model configured, or no key for api.openai.com, is an exit-2 error saying what to set", () => {
    const none = configError(() => requireModel(load()));
    expect(none.message + none.hint).toMatch(/DEERFLOW_MODEL/);
    const noKey = configError(() => requireModel(load({ DEERFLOW_MODEL: "gpt-4o" })));
    expect(noKey.hint).toMatch(/OPENAI_API_KEY/);
  });
});

describe(".deerflowrc syntax", () => {
  it("accepts // and /* */ comments but not inside strings", () => {
    const text = `// top\n{ /* a */ "home": "http://x//y", // trailing\n "defaultModel": "a/*b*/" }`;
    expect(parseJsonc(text)).toEqual({ home: "http://x//y", defaultModel: "a/*b*/" });
    expect(parseJsonc(`{"a": "q\\"//"}`)).toEqual({ a: 'q"//' });
    // Errors say where: the line and column of the first problem.
    expect(() => parseJsonc(`{\n  // ok\n  "a": 1,\n}`)).toThrow("PropertyNameExpected at line 4, column 1");
    expect(() => parseJsonc(`{ "a": 1 "b": 2 }`)).toThrow(/CommaExpected at line 1, column 10/);
  });

  it("the shipped .deerflowrc.example is valid and documents every key of the schema", () => {
    const example = new URL("../../.deerflowrc.example", import.meta.url).pathname;
    const { config } = readConfigFile(example);
    // A key that must stay off when the file is copied as it is (the team database; hooks, which run commands) is
    // documented commented out.
    const commented = [...readFileSync(example, "utf8").matchAll(/^ {2}\/\/ "(\w+)":/gm)].map((m) => m[1]!);
    expect(commented).toEqual(["database", "hooks"]);
    expect([...Object.keys(config), ...commented].sort()).toEqual(Object.keys(fileConfigSchema.shape).sort());
    const modelKeys = new Set(Object.values(config.models!).flatMap((m) => Object.keys(m)));
    expect([...modelKeys].sort()).toEqual(Object.keys(modelConfigSchema.shape).sort());
    expect(Object.keys(config.checkpoint!).sort()).toEqual(["channelMode", "snapshotFrequency"]);
  });

  it("masks secrets", () => {
    expect(maskSecret("sk-1234567890abcdef")).not.toContain("567890");
    expect(maskSecret("short")).toBe("****");
  });
});

describe("sandbox paths of a trusted project file (the seventh pass)", () => {
  it("a relative readWrite entry that a symlink swapped in after trust leads out of the folder is refused, not bound", () => {
    mkdirSync(join(userHome, ".config"), { recursive: true });
    mkdirSync(join(cwd, "data"));
    writeTrusted(join(cwd, ".deerflowrc"), JSON.stringify({ sandbox: { readWrite: ["data"] } }));
    expect(load().sandbox.readWrite).toEqual([join(cwd, "data")]);
    rmSync(join(cwd, "data"), { recursive: true });
    symlinkSync(join(userHome, ".config"), join(cwd, "data"));
    const err = configError(() => load());
    expect(err.message).toContain('"data" leads to');
    expect(err.message).toContain("outside the folder it names");
  });
});
