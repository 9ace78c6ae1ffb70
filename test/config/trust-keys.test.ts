// Every key the .deerflowrc schema accepts is classified in src/config/trust-keys.ts: a key added later without a
// decision (does it need trust?) fails here, and so does a table entry the schema no longer has.
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { leafPaths } from "../support/schema-paths.js";
import { fileConfigSchema } from "../../src/config/schema.js";
import { KEY_CLASSES, RESERVED_KEYS, needsTrust, setKeys } from "../../src/config/trust-keys.js";

describe("the trust classification of .deerflowrc keys", () => {
  const paths = leafPaths(fileConfigSchema as unknown as z.ZodType);

  it("walks the whole schema, records included", () => {
    expect(paths).toEqual(expect.arrayContaining(["models.*.baseUrl", "mcpServers.*.command", "subagents.*.systemPrompt", "sandbox.readWrite", "approval"]));
    expect(paths.length).toBeGreaterThan(50);
  });

  it("classifies every key path of the schema, with a reason", () => {
    const unclassified = paths.filter((p) => !KEY_CLASSES[p]);
    expect(unclassified, "classify these in src/config/trust-keys.ts").toEqual([]);
    for (const p of paths) expect(KEY_CLASSES[p]!.why.length, p).toBeGreaterThan(3);
  });

  it("has no entries the schema lost (besides the reserved ones)", () => {
    expect(Object.keys(KEY_CLASSES).filter((k) => !paths.includes(k) && !RESERVED_KEYS.includes(k))).toEqual([]);
  });

  it("requires trust for what can run commands, widen the sandbox, change approvals or route keys; not for tuning", () => {
    for (const p of [
      "mcpServers.h.command",
      "sandbox.readWrite",
      "sandbox.passEnv",
      "approval",
      "models.x.baseUrl",
      "models.x.apiKey",
      "models.x.model",
      "baseUrl",
      "apiKey",
      "home",
      "database",
      "guards.loopStop",
      "runTimeout",
      "subagents.s.systemPrompt",
      "defaultModel",
    ]) {
      expect(needsTrust(p.split("."), p === "approval" ? "yolo" : ["x"]), p).toBe(true);
    }
    for (const p of ["models.x.contextWindow", "compaction.threshold", "checkpoint.channelMode", "mcp.startupTimeout"]) expect(needsTrust(p.split("."), 1), p).toBe(false);
  });

  it("lets an untrusted file only tighten where a value can only tighten", () => {
    expect(needsTrust(["approval"], "ask")).toBe(false);
    expect(needsTrust(["approval"], "auto-edit")).toBe(true);
    expect(needsTrust(["sandbox", "network"], "off")).toBe(false);
    expect(needsTrust(["sandbox", "network"], "on")).toBe(true);
    expect(needsTrust(["piiRedaction"], true)).toBe(false);
    expect(needsTrust(["piiRedaction"], false)).toBe(true);
    expect(needsTrust(["memory", "enabled"], false)).toBe(false);
    expect(needsTrust(["memory", "enabled"], true)).toBe(true);
    expect(needsTrust(["some", "future", "key"], 1)).toBe(true);
  });

  it("lists the keys a parsed file sets, record entries by name", () => {
    const parsed = fileConfigSchema.parse({ models: { x: { model: "m", baseUrl: "http://h/v1" } }, mcpServers: { h: { command: "bash", env: { A: "1" } } }, sandbox: { readWrite: ["~"] } });
    expect(
      setKeys(parsed)
        .map((k) => k.path)
        .sort(),
    ).toEqual(["mcpServers.h.command", "mcpServers.h.env", "models.x.baseUrl", "models.x.model", "sandbox.readWrite"]);
  });

  it("keeps a record's name one part of the path, whatever it holds", () => {
    const parsed = fileConfigSchema.parse({ models: { "e.v": { model: "m", baseUrl: "http://h/v1" } }, mcpServers: { "a.b": { command: "bash" } } });
    expect(setKeys(parsed).map((k) => k.keys)).toEqual([
      ["models", "e.v", "model"],
      ["models", "e.v", "baseUrl"],
      ["mcpServers", "a.b", "command"],
    ]);
    expect(setKeys(parsed).map((k) => k.path)).toEqual(['models."e.v".model', 'models."e.v".baseUrl', 'mcpServers."a.b".command']);
    expect(needsTrust(["mcpServers", "a.b", "command"], "bash")).toBe(true);
    expect(needsTrust(["models", "e.v", "contextWindow"], 8000)).toBe(false);
    // A model id is a route on a gateway; the entry's own name as its id is what the entry would send anyway.
    expect(needsTrust(["models", "e.v", "model"], "free/logging-model")).toBe(true);
    expect(needsTrust(["models", "e.v", "model"], "e.v")).toBe(false);
  });
});
