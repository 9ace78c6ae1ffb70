// The first-run picker's write to ~/.deerflowrc: the user's other keys and models stay, a different model under
// the same name is not overwritten, a symlinked rc stays a symlink, a private file stays private, and the result
// loads as the selected model.
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { saveModelChoice } from "../../src/config/save-model-choice.js";

const home = () => mkdtempSync(join(tmpdir(), "deerflow-rc-"));
const choice = { model: "qwen2.5-coder:7b", baseUrl: "http://127.0.0.1:11434/v1" };

describe("saveModelChoice", () => {
  it("creates a private file that selects the model", () => {
    const h = home();
    const saved = saveModelChoice(choice, h);
    expect(saved).toEqual({ path: join(h, ".deerflowrc"), name: "qwen2.5-coder:7b" });
    expect(statSync(saved.path).mode & 0o777).toBe(0o600);
    const m = loadConfig({ userHome: h, cwd: h, env: {} }).model;
    expect(m).toMatchObject({ name: "qwen2.5-coder:7b", model: "qwen2.5-coder:7b", baseUrl: "http://127.0.0.1:11434/v1" });
    expect(readdirSync(h)).toEqual([".deerflowrc"]); // no temporary file left
  });

  it("keeps other keys and models; a different model of the same name gets another key; permissions stay", () => {
    const h = home();
    const rc = join(h, ".deerflowrc");
    writeFileSync(
      rc,
      JSON.stringify({
        baseUrl: "https://api.example.com/v1",
        apiKey: "$KEY",
        models: { "qwen2.5-coder:7b": { model: "qwen2.5-coder:7b", baseUrl: "https://elsewhere/v1" }, gpt: { model: "gpt-4o" } },
      }),
    );
    chmodSync(rc, 0o640);
    const saved = saveModelChoice(choice, h);
    expect(saved.name).toBe("qwen2.5-coder:7b-2");
    expect(JSON.parse(readFileSync(rc, "utf8"))).toEqual({
      baseUrl: "https://api.example.com/v1",
      apiKey: "$KEY",
      models: { "qwen2.5-coder:7b": { model: "qwen2.5-coder:7b", baseUrl: "https://elsewhere/v1" }, gpt: { model: "gpt-4o" }, "qwen2.5-coder:7b-2": choice },
      defaultModel: "qwen2.5-coder:7b-2",
    });
    expect(statSync(rc).mode & 0o777).toBe(0o640);
    // Picking the same again reuses its entry.
    expect(saveModelChoice(choice, h).name).toBe("qwen2.5-coder:7b-2");
  });

  it("a symlinked rc: the target is rewritten, the link stays", () => {
    const h = home();
    const target = join(h, "dotfiles-rc.json");
    writeFileSync(target, "{}");
    symlinkSync(target, join(h, ".deerflowrc"));
    saveModelChoice(choice, h);
    expect(lstatSync(join(h, ".deerflowrc")).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(target, "utf8")).defaultModel).toBe("qwen2.5-coder:7b");
  });

  it("a file that is not a JSON object is left alone with a clear error", () => {
    const h = home();
    writeFileSync(join(h, ".deerflowrc"), "[1, 2]");
    expect(() => saveModelChoice(choice, h)).toThrow(/Could not add the model to .*\.deerflowrc: it is not a JSON object\./);
    expect(readFileSync(join(h, ".deerflowrc"), "utf8")).toBe("[1, 2]");
    expect(existsSync(join(h, ".deerflowrc.bak"))).toBe(false);
  });

  it("a file with comments keeps them and its layout: only the chosen model and defaultModel are written", () => {
    const h = home();
    const rc = join(h, ".deerflowrc");
    const before = `{\n  // my endpoint, do not touch\n  "baseUrl": "https://api.example.com/v1", /* key from env */ "apiKey": "$KEY",\n  "models": {\n    "gpt": { "model": "gpt-4o" } // the old one\n  }\n}\n`;
    writeFileSync(rc, before);
    saveModelChoice(choice, h);
    const after = readFileSync(rc, "utf8");
    expect(after).toContain("// my endpoint, do not touch");
    expect(after).toContain('"baseUrl": "https://api.example.com/v1", /* key from env */ "apiKey": "$KEY",');
    expect(after).toContain('"gpt": { "model": "gpt-4o" }');
    expect(after).toContain("// the old one");
    expect(readdirSync(h)).toEqual([".deerflowrc"]); // no .bak: nothing was lost
    expect(loadConfig({ userHome: h, cwd: h, env: { KEY: "k" } }).model).toMatchObject({ name: "qwen2.5-coder:7b", baseUrl: "http://127.0.0.1:11434/v1" });
  });
});
