// The home inside bubblewrap is an allow list (sandbox-home.ts): a login file no list names is out of reach, while
// toolchains under the home still run, the workspace under it is writable, and git commits with the host's identity
// but none of its other global settings. Real bwrap, a real git; a private home per test.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { bwrapArgs } from "../../src/sandbox/bwrap-args.js";
import { homeToolchainPaths } from "../../src/sandbox/sandbox-home.js";
import { hostSecretReason } from "../../src/sandbox/host-secrets.js";
import { defaultShellSettings, shellSettingsFromConfig } from "../../src/sandbox/shell-settings.js";
import { HAS_BWRAP } from "../support/confinement.js";
import { makeRoot } from "../tools/helpers.js";

function fakeHome() {
  const root = makeRoot("deerflow-home-");
  const home = join(root, "home");
  const ws = join(home, "src", "app");
  mkdirSync(ws, { recursive: true });
  // Logins no secret list names: a new tool's token, an app's config with a key.
  mkdirSync(join(home, ".someapp"), { recursive: true });
  writeFileSync(join(home, ".someapp", "token"), "UNLISTED-TOKEN-1\n");
  mkdirSync(join(home, ".config", "newtool"), { recursive: true });
  writeFileSync(join(home, ".config", "newtool", "auth.json"), '{"key":"UNLISTED-TOKEN-2"}\n');
  // A toolchain the user installed under the home, on PATH.
  mkdirSync(join(home, ".local", "bin"), { recursive: true });
  writeFileSync(join(home, ".local", "bin", "mytool"), "#!/bin/sh\necho mytool-ran\n");
  chmodSync(join(home, ".local", "bin", "mytool"), 0o755);
  writeFileSync(
    join(home, ".gitconfig"),
    '[user]\n\tname = Ada Example\n\temail = ada@example.com\n[credential]\n\thelper = store\n[url "https://x:ghp_SECRET@github.com/"]\n\tinsteadOf = https://github.com/\n',
  );
  const paths = { workspace_path: ws, uploads_path: join(root, "data", "up"), outputs_path: join(root, "data", "out") };
  mkdirSync(paths.uploads_path, { recursive: true });
  mkdirSync(paths.outputs_path, { recursive: true });
  const settings = defaultShellSettings({ userHome: home, dataDir: join(root, "data") });
  return { root, home, ws, paths, settings };
}

async function inSandbox(h: ReturnType<typeof fakeHome>, command: string, extraPath: string[] = []) {
  const env = { PATH: [...extraPath, join(h.home, ".local", "bin"), "/usr/local/bin:/usr/bin:/bin"].join(":"), HOME: h.home };
  const saved = process.env.PATH;
  process.env.PATH = env.PATH; // the PATH deerflow runs with decides which home folders are toolchains
  try {
    const args = bwrapArgs(h.paths, h.settings, ["bash", "-c", command]);
    return await execa("bwrap", args, { env, extendEnv: false, reject: false, all: true });
  } finally {
    process.env.PATH = saved;
  }
}

describe("homeToolchainPaths", () => {
  it("binds known toolchains and PATH entries inside the home, never the home itself, .config or paths outside", () => {
    const h = fakeHome();
    mkdirSync(join(h.home, ".nvm", "versions", "node", "v20", "bin"), { recursive: true });
    mkdirSync(join(h.home, "tools", "x", "bin"), { recursive: true });
    mkdirSync(join(h.home, ".config", "app", "bin"), { recursive: true });
    const got = homeToolchainPaths(h.home, `${h.home}/tools/x/bin:${h.home}/.config/app/bin:${h.home}:/usr/bin`, "/usr/bin/node");
    // A PATH entry is bound itself, never its prefix (~/.fly/bin must not bind ~/.fly and its config.yml).
    expect(got).toEqual([join(h.home, ".config", "app", "bin"), join(h.home, ".local", "bin"), join(h.home, ".nvm"), join(h.home, "tools", "x", "bin")]);
    expect(got).not.toContain(h.home);
    expect(got).not.toContain(join(h.home, ".config"));
  });
});

describe.skipIf(!HAS_BWRAP)("the home inside bubblewrap", () => {
  it("the code cache (compiled code deerflow runs at its next start, and its key) stays out of reach, even with ~/.cache read-write (the eleventh pass)", async () => {
    const h = fakeHome();
    const cache = join(h.home, ".cache", "deerflow");
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, "code-cache.key"), "KEY-BYTES-PLANTED\n");
    const savedHome = process.env.HOME;
    const savedDir = process.env.DEERFLOW_CACHE_DIR;
    process.env.HOME = h.home;
    delete process.env.DEERFLOW_CACHE_DIR;
    try {
      const config = { home: join(h.root, "data"), files: [], models: {}, model: null };
      h.settings = shellSettingsFromConfig({ ...config, sandbox: { network: true, readWrite: [join(h.home, ".cache")], readOnly: [], passEnv: [], require: false } });
    } finally {
      process.env.HOME = savedHome;
      if (savedDir !== undefined) process.env.DEERFLOW_CACHE_DIR = savedDir;
    }
    const r = await inSandbox(h, `cat ${cache}/code-cache.key; echo planted > ${cache}/runtime.cjs.run-x.v8cache; echo pip > ${h.home}/.cache/pip-ok; echo done`);
    expect(r.all).toContain("done");
    expect(r.all).not.toContain("KEY-BYTES-PLANTED");
    expect(existsSync(join(cache, "runtime.cjs.run-x.v8cache"))).toBe(false);
    // The rest of ~/.cache is what the user bound read-write.
    expect(existsSync(join(h.home, ".cache", "pip-ok"))).toBe(true);
  });

  it("a PATH tool's own config beside its bin, a node prefix's global npmrc and .NET's certificate stores stay hidden", async () => {
    const h = fakeHome();
    mkdirSync(join(h.home, ".fly", "bin"), { recursive: true });
    writeFileSync(join(h.home, ".fly", "config.yml"), "access_token: FLY-TOKEN-1\n");
    writeFileSync(join(h.home, ".fly", "bin", "flyctl"), "#!/bin/sh\necho fly-ran\n");
    chmodSync(join(h.home, ".fly", "bin", "flyctl"), 0o755);
    mkdirSync(join(h.home, ".nvm", "versions", "node", "v20.0.0", "etc"), { recursive: true });
    writeFileSync(join(h.home, ".nvm", "versions", "node", "v20.0.0", "etc", "npmrc"), "//registry.npmjs.org/:_authToken=NPM-TOKEN-1\n");
    mkdirSync(join(h.home, ".dotnet", "corefx", "cryptography", "x509stores", "my"), { recursive: true });
    writeFileSync(join(h.home, ".dotnet", "corefx", "cryptography", "x509stores", "my", "k.pfx"), "PFX-SECRET-1");
    const r = await inSandbox(h, "cat ~/.fly/config.yml ~/.nvm/versions/node/v20.0.0/etc/npmrc ~/.dotnet/corefx/cryptography/x509stores/my/k.pfx 2>&1; flyctl", [join(h.home, ".fly", "bin")]);
    expect(r.all).not.toMatch(/FLY-TOKEN|NPM-TOKEN|PFX-SECRET/);
    expect(r.all).toContain("fly-ran");
  });

  it("logins inside a version manager's folders stay hidden: rbenv-vars and pyenv-vars, pip's, RubyGems' and Maven's site settings (A37b-2)", async () => {
    const h = fakeHome();
    const put = (rel: string, body: string) => {
      mkdirSync(join(h.home, rel, ".."), { recursive: true });
      writeFileSync(join(h.home, rel), body);
    };
    put(".rbenv/vars", "SECRET_KEY_BASE=RBENV-VARS-1\n");
    put(".pyenv/vars", "SENTRY_DSN=PYENV-VARS-1\n");
    put(".pyenv/versions/3.12.1/pip.conf", "[global]\nindex-url = https://ci:PIP-PASS-1@pypi.example/simple\n");
    put(".rbenv/versions/3.3.0/etc/gemrc", ":sources:\n- https://u:GEM-PASS-1@gems.example/\n");
    put(".sdkman/candidates/maven/3.9.6/conf/settings.xml", "<password>MVN-PASS-1</password>\n");
    put(".sdkman/candidates/gradle/8.5/gradle.properties", "corpRepoPassword=GRADLE-PASS-1\n");
    put(".pyenv/versions/3.12.1/bin/python-ok", "ran\n");
    // sdkman's `current` is a link to the version in use: the same file by another path.
    symlinkSync("3.9.6", join(h.home, ".sdkman", "candidates", "maven", "current"));
    const r = await inSandbox(
      h,
      "cd ~ && cat .rbenv/vars .pyenv/vars .pyenv/versions/3.12.1/pip.conf .rbenv/versions/3.3.0/etc/gemrc .sdkman/candidates/maven/current/conf/settings.xml .sdkman/candidates/maven/3.9.6/conf/settings.xml .sdkman/candidates/gradle/8.5/gradle.properties .pyenv/versions/3.12.1/bin/python-ok 2>&1",
    );
    expect(r.all).not.toMatch(/RBENV-VARS|PYENV-VARS|PIP-PASS|GEM-PASS|MVN-PASS|GRADLE-PASS/);
    // The toolchains themselves are still there.
    expect(r.all).toContain("ran");
  });

  it("an unlisted login under the home is not there; a toolchain under it runs; the workspace under it is writable", async () => {
    const h = fakeHome();
    const r = await inSandbox(h, `cat ~/.someapp/token ~/.config/newtool/auth.json 2>&1; ls -A ~; mytool; echo hi > written.txt && cat written.txt; echo x > ~/scratch && echo home-writable`);
    expect(r.all).not.toContain("UNLISTED-TOKEN");
    expect(r.all).toContain("No such file or directory");
    expect(r.all).toContain("mytool-ran");
    expect(r.all).toContain("hi");
    expect(r.all).toContain("home-writable");
    expect(existsSync(join(h.ws, "written.txt"))).toBe(true);
    // The sandbox's own writes to the home stay in its tmpfs.
    expect(existsSync(join(h.home, "scratch"))).toBe(false);
  });

  it("logins moved out of the home by a variable (XDG_CONFIG_HOME, DOCKER_CONFIG, KUBECONFIG) or through a linked ~/.ssh stay hidden, and a moved ~/.config whole (A38a-3, A39-2, A39-3)", async () => {
    const h = fakeHome();
    // Somewhere the sandbox shows (the workspace, as a dotfiles checkout or a synced folder would be).
    const away = join(h.ws, "dotfiles");
    const put = (rel: string, text: string) => {
      mkdirSync(join(away, rel, ".."), { recursive: true });
      writeFileSync(join(away, rel), text);
    };
    put("xdg/gh/hosts.yml", "oauth_token: XDG-GH-TOKEN\n");
    put("docker/config.json", '{"auths":{"r":{"auth":"DOCKER-AUTH"}}}\n');
    put("kube/config", "token: KUBE-TOKEN\n");
    put("ssh/id_ed25519", "SSH-KEY\n");
    put("notes.txt", "PUBLIC-NOTES\n");
    put("gitconfig", "[http]\n\textraheader = AUTHORIZATION: basic GIT-HEADER\n");
    // A39-2, A39-3: an unlisted login under a moved ~/.config, variables that name one file, a key linked from ~/.ssh
    put("xdg/glab-cli/config.yml", "token: GLAB-UNLISTED\n");
    put("hist", "mysql -p HIST-PW\n");
    put("hf/token", "HF-TOKEN\n");
    put("keys/id_rsa", "LINKED-KEY\n");
    symlinkSync(join(away, "ssh"), join(h.home, ".ssh"));
    symlinkSync(join(away, "keys", "id_rsa"), join(away, "ssh", "id_rsa"));
    const saved = { ...process.env };
    Object.assign(process.env, {
      XDG_CONFIG_HOME: join(away, "xdg"),
      DOCKER_CONFIG: join(away, "docker"),
      KUBECONFIG: `/nonexistent:${join(away, "kube", "config")}`,
      GIT_CONFIG_GLOBAL: join(away, "gitconfig"),
      HISTFILE: join(away, "hist"),
      HF_HOME: join(away, "hf"),
    });
    try {
      const r = await inSandbox(
        h,
        "cat dotfiles/xdg/gh/hosts.yml dotfiles/docker/config.json dotfiles/kube/config dotfiles/ssh/id_ed25519 dotfiles/gitconfig dotfiles/xdg/glab-cli/config.yml dotfiles/hist dotfiles/hf/token dotfiles/keys/id_rsa dotfiles/notes.txt 2>&1",
      );
      expect(r.all).not.toMatch(/XDG-GH-TOKEN|DOCKER-AUTH|KUBE-TOKEN|SSH-KEY|GIT-HEADER|GLAB-UNLISTED|HIST-PW|HF-TOKEN|LINKED-KEY/);
      expect(r.all).toContain("PUBLIC-NOTES");
      // The file tools and the unconfined checks refuse the same places.
      const ctx = { userHome: h.home, dataDir: join(h.root, "data") };
      for (const f of ["xdg/gh/hosts.yml", "docker/config.json", "kube/config", "ssh/id_ed25519"]) expect(hostSecretReason(join(away, f), ctx), f).toMatch(/credentials/);
      expect(hostSecretReason(join(away, "notes.txt"), ctx)).toBeUndefined();
    } finally {
      for (const k of ["XDG_CONFIG_HOME", "DOCKER_CONFIG", "KUBECONFIG", "GIT_CONFIG_GLOBAL", "HISTFILE", "HF_HOME"]) if (saved[k] === undefined) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  it("git commits with the host's identity, and the host's credential helper and url rewrites are not there", async () => {
    const h = fakeHome();
    execFileSync("git", ["init", "-q", h.ws]);
    const r = await inSandbox(h, `git config --global --list; echo a > a.txt && git add a.txt && git -c commit.gpgsign=false commit -qm first && git log --format='%an <%ae>'`);
    expect(r.all).toContain("Ada Example <ada@example.com>");
    expect(r.all).not.toContain("ghp_SECRET");
    expect(r.all).not.toContain("credential.helper");
  });

  it("an identity changed in ~/.gitconfig between two commands is the next command's (the identity is read once per change)", async () => {
    const h = fakeHome();
    const who = "git config --global user.name";
    expect((await inSandbox(h, who)).all).toContain("Ada Example");
    expect((await inSandbox(h, who)).all).toContain("Ada Example");
    writeFileSync(join(h.home, ".gitconfig"), "[user]\n\tname = Grace Renamed\n\temail = grace@example.com\n");
    expect((await inSandbox(h, who)).all).toContain("Grace Renamed");
  });
});

describe("the sandbox's network namespace", () => {
  it("follows the settings, not the proxy folder: network on without a proxy is no network, never the host's", () => {
    const h = fakeHome();
    const on = { ...h.settings, network: true };
    expect(bwrapArgs(h.paths, on, ["true"])).toContain("--unshare-net");
    expect(bwrapArgs(h.paths, { ...on, network: false }, ["true"])).toContain("--unshare-net");
    expect(bwrapArgs(h.paths, { ...on, hostNetwork: true }, ["true"])).not.toContain("--unshare-net");
  });
});
