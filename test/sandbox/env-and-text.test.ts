// Secrets by value, terminal-safe text and dangerous workspaces: the small policies behind the confinement suite.
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isSecretEnvValue, scrubEnv } from "../../src/sandbox/env-scrub.js";
import { dangerousWorkspaceReason } from "../../src/sandbox/workspace-check.js";
import { forTerminal, maskUrlCredentials, stripControl } from "../../src/vocabulary/terminal-text.js";

describe("environment scrub by value", () => {
  it("drops credentials whatever the variable is called, keeps plain values", () => {
    const env = {
      DATABASE_URL: "postgres://user:hunter2@db.internal:5432/app",
      REDIS_URL: "redis://:pw@cache:6379",
      MY_SETTING: "sk-abcdefghijklmnopqrstuvwx",
      GH: "ghp_abcdefghijklmnopqrstuvwxyz012345",
      AWS_ID: "AKIAABCDEFGHIJKLMNOP",
      PLAIN_URL: "https://example.com/path",
      HOME: "/home/u",
      CONFIGURED: "contains-the-key-0123456789",
    };
    const out = scrubEnv(env, { secretValues: ["the-key-0123456789"] });
    expect(Object.keys(out).sort()).toEqual(["HOME", "PLAIN_URL"]);
  });

  it("sandbox.passEnv lets a listed variable through unchecked", () => {
    expect(scrubEnv({ NPM_TOKEN: "npm_x", DATABASE_URL: "postgres://u:p@h/d" }, { passEnv: ["NPM_TOKEN", "DATABASE_URL"] })).toEqual({
      NPM_TOKEN: "npm_x",
      DATABASE_URL: "postgres://u:p@h/d",
    });
  });

  it("a URL without a password is not a secret", () => {
    expect(isSecretEnvValue("https://user@example.com/x")).toBe(false);
    expect(isSecretEnvValue("http://localhost:8080")).toBe(false);
  });
});

describe("terminal-safe text", () => {
  it("removes clear-screen, OSC 52 clipboard writes, titles, C1 controls; keeps newlines and tabs", () => {
    const hostile = "a\u001b[2J\u001b[H\u001b]52;c;cHduZWQ=\u0007b\u001b]0;title\u001b\\c\u009b31md\r\ne\tf\u0007";
    expect(stripControl(hostile)).toBe("abcd\ne\tf");
  });

  it("masks credentials in URLs", () => {
    expect(maskUrlCredentials("retrying https://bob:s3cret@api.example.com/v1 (429)")).toBe("retrying https://bob:****@api.example.com/v1 (429)");
    expect(maskUrlCredentials("postgres://:pw@h/d")).toBe("postgres://:****@h/d");
    expect(forTerminal("http://localhost:1234/v1")).toBe("http://localhost:1234/v1");
  });
});

describe("dangerous workspaces", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "deerflow-ws-")));
  const ctx = { userHome: join(root, "home"), dataDir: join(root, "home", ".deerflow") };
  it.each(["/", "/etc", "/etc/ssh", "/usr", "/usr/lib", "/home", "/tmp", "/proc/self"])("%s is refused", (dir) => {
    expect(dangerousWorkspaceReason(dir, ctx)).toMatch(/system directory/);
  });
  it("the home directory and any directory holding the data directory are refused; a project is fine", () => {
    expect(dangerousWorkspaceReason(ctx.userHome, ctx)).toMatch(/home directory/);
    expect(dangerousWorkspaceReason(root, ctx)).toMatch(/data directory/);
    expect(dangerousWorkspaceReason(join(ctx.userHome, "project"), ctx)).toBeUndefined();
  });
});
