// Package managers and toolchains: what changes the programs and packages every later command runs. An install, a
// REMOVAL and a user-wide settings write each ask with their own reason, so without a sandbox a person answers
// (`--yes` and yolo do not: shell-unconfined.ts `needsPerson`). The seventeenth pass (Y11) found removals
// (`sudo apt-get remove -y nodejs`, `pip uninstall -y requests`, `rustup toolchain uninstall stable`) and registry
// writes (`npm config set registry …`, `pip config set global.index-url …`) approved by `--yes` while installs were
// not: a removed runtime breaks the machine until someone repairs it, and a registry or index write re-points every
// later install (the memory filter refuses facts naming a registry for that reason). Inside bubblewrap they ask too,
// as installs always have.
import type { SimpleCommand } from "./shell-command.js";

export const INSTALLS_REASON = "installing packages";
export const REMOVES_REASON = "removing packages or a toolchain (a runtime the machine needs may go with it)";
export const SETTINGS_REASON = "changes a package manager's settings for every later install (a registry, an index, a proxy)";

interface PackageRule {
  verdict: "ask";
  reason: string;
  cmd: RegExp;
  /** Tested against " " + args.join(" ") + " " (quotes removed), as the audit's table does. */
  args?: RegExp;
  test?: (c: SimpleCommand) => boolean;
}

/** The words that are not options: `npm -g uninstall x` → uninstall, x. */
const words = (c: SimpleCommand) => c.args.filter((a) => !a.startsWith("-"));
/** The sub-command (the first word), or for `yarn global remove` / `rustup toolchain uninstall` the one after. */
const verb = (c: SimpleCommand, re: RegExp, at = 0) => re.test(words(c)[at] ?? "");

const SYSTEM = /^(?:apt|apt-get|aptitude|dnf|yum|zypper|apk|brew|cargo|gem|port|snap|flatpak)$/;
const VERSIONS = /^(?:pyenv|nvm|fnm|nodenv|rbenv|goenv|asdf|mise|rtx|volta|sdk|jenv|tfenv|n)$/;

export const PACKAGE_RULES: readonly PackageRule[] = [
  // removals first: `yarn global remove` is a removal, not an install
  { verdict: "ask", reason: REMOVES_REASON, cmd: /^(?:npm|pnpm|bun)$/, test: (c) => verb(c, /^(?:uninstall|un|unlink|remove|rm|r)$/) },
  { verdict: "ask", reason: REMOVES_REASON, cmd: /^yarn$/, test: (c) => verb(c, /^remove$/) || (verb(c, /^global$/) && verb(c, /^remove$/, 1)) },
  { verdict: "ask", reason: REMOVES_REASON, cmd: /^(?:pip[\d.]*|pipx|uv|poetry|conda|mamba|micromamba)$/, test: (c) => words(c).some((w) => /^(?:uninstall|uninstall-all|remove)$/.test(w)) },
  { verdict: "ask", reason: REMOVES_REASON, cmd: /^python[\d.]*$/, args: / -[A-Za-z]*m ?pip[\d.]* (?:\S+ )*?uninstall / },
  { verdict: "ask", reason: REMOVES_REASON, cmd: SYSTEM, test: (c) => verb(c, /^(?:remove|purge|autoremove|erase|uninstall|rm|del|zap)$/) },
  { verdict: "ask", reason: REMOVES_REASON, cmd: /^pacman$/, args: / -R/ },
  { verdict: "ask", reason: REMOVES_REASON, cmd: /^dpkg$/, args: / (?:-[\w#]*[rP]|--remove|--purge) / },
  { verdict: "ask", reason: REMOVES_REASON, cmd: /^rpm$/, args: / (?:-[\w#]*e|--erase) / },
  { verdict: "ask", reason: REMOVES_REASON, cmd: VERSIONS, test: (c) => words(c).some((w) => /^(?:uninstall|remove|rm)$/.test(w)) },
  { verdict: "ask", reason: REMOVES_REASON, cmd: /^rustup$/, test: (c) => words(c).some((w) => /^(?:uninstall|remove)$/.test(w)) },
  { verdict: "ask", reason: REMOVES_REASON, cmd: /^composer$/, test: (c) => verb(c, /^global$/) && verb(c, /^remove$/, 1) },
  { verdict: "ask", reason: REMOVES_REASON, cmd: /^nix-env$/, args: / (?:-[a-zA-Z]*e[a-zA-Z]*|--uninstall) / },
  { verdict: "ask", reason: REMOVES_REASON, cmd: /^nix$/, test: (c) => verb(c, /^profile$/) && verb(c, /^(?:remove|wipe-history)$/, 1) },
  { verdict: "ask", reason: REMOVES_REASON, cmd: /^corepack$/, test: (c) => verb(c, /^disable$/) },
  // installs
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^(?:npm|pnpm|bun)$/, args: /^ (?:\S+ )*?(?:install|i|add|ci) / },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^yarn$/, args: /^ +(?:(?:install|add|global) .*)?$/ },
  // `npm init <pkg>` / `create <pkg>` install create-<pkg> and run it; dedupe re-installs the tree (A27-3).
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^(?:npm|pnpm|yarn|bun)$/, test: (c) => (verb(c, /^(?:init|innit|create)$/) && words(c).length > 1) || verb(c, /^(?:dedupe|ddp)$/) },
  // The twenty-eighth pass (A28-5, A28-7): `npm link` installs the project globally (its bins on the user's PATH), and
  // the managers no rule named: conda's family, pdm, cpanm, dotnet tools, R's install.packages.
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^(?:npm|pnpm|yarn|bun)$/, test: (c) => verb(c, /^(?:link|ln)$/) },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^(?:conda|mamba|micromamba|pixi|pdm)$/, test: (c) => verb(c, /^(?:install|add|update|upgrade|global|create|sync)$/) },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^(?:cpan|cpanm|cpm)$/, test: () => true },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^dotnet$/, test: (c) => verb(c, /^tool$/) && verb(c, /^(?:install|update|restore)$/, 1) },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^(?:Rscript|R)$/, test: (c) => c.args.some((a) => /install\.packages|remotes::install|devtools::install|pak::/.test(a)) },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^julia$/, test: (c) => c.args.some((a) => /Pkg\.(?:add|update|develop)/.test(a)) },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^(?:pip[\d.]*|pipx|uv|poetry)$/, args: / (?:install|add|sync) / },
  // Options may come between pip and its verb (`-m pip -q install`), and setup.py installs too (A29a-5).
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^python[\d.]*$/, args: / -[A-Za-z]*m ?pip[\d.]* (?:\S+ )*?install | setup\.py (?:\S+ )*?(?:install|develop) / },
  // npm's own aliases and misspellings of install and update (`npm isntall -g`, `udpate`: A29a-5); dpkg and rpm installs.
  {
    verdict: "ask",
    reason: INSTALLS_REASON,
    cmd: /^(?:npm|pnpm|bun)$/,
    test: (c) =>
      words(c)
        .slice(0, 2)
        .some((w) => /^(?:in|ins|inst|insta|instal|isnt|isnta|isntal|isntall|install-test|it|install-ci-test|cit|clean-install|ic|sit|udpate)$/.test(w)),
  },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^dpkg$/, args: / (?:-[\w#]*i|--install|--unpack) / },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^rpm$/, args: / (?:-[\w#]*[iUF]|--install|--upgrade|--freshen|--reinstall) / },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: SYSTEM, args: / (?:install|add|reinstall) / },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^pacman$/, args: / -S/ },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^go$/, args: /^ (?:install|get) / },
  // upgrades change what is installed as installs do (the nineteenth pass's Y11b)
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^(?:npm|pnpm|bun)$/, test: (c) => verb(c, /^(?:update|upgrade|up|outdated-update)$/) },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^yarn$/, test: (c) => verb(c, /^(?:upgrade|up)$/) || (verb(c, /^global$/) && verb(c, /^(?:upgrade|add)$/, 1)) },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: SYSTEM, test: (c) => verb(c, /^(?:upgrade|full-upgrade|dist-upgrade|update)$/) && !/^(?:apt|apt-get|aptitude|cargo)$/.test(c.name) },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^(?:apt|apt-get|aptitude)$/, test: (c) => verb(c, /^(?:upgrade|full-upgrade|dist-upgrade)$/) },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^corepack$/, test: (c) => verb(c, /^(?:enable|prepare|install|use|up)$/) },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^composer$/, test: (c) => verb(c, /^global$/) && verb(c, /^(?:require|update|install|upgrade)$/, 1) },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^nix-env$/, args: / (?:-[a-zA-Z]*[iu][a-zA-Z]*|--install|--upgrade) / },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^nix$/, test: (c) => verb(c, /^profile$/) && verb(c, /^(?:install|add|upgrade)$/, 1) },
  // toolchains, runtime versions, and the plugins and extensions of other programs: what they install runs later, in
  // every project (the twentieth pass's Y11c: `rustup update`, `nvm install 18`, `gh extension install`, `code --install-extension`)
  {
    verdict: "ask",
    reason: INSTALLS_REASON,
    cmd: /^rustup$/,
    test: (c) => verb(c, /^(?:update|install|default|self|toolchain|target|component|override|set)$/) && !words(c).some((w) => /^(?:list|show)$/.test(w)),
  },
  {
    verdict: "ask",
    reason: INSTALLS_REASON,
    cmd: VERSIONS,
    test: (c) =>
      c.name === "n"
        ? words(c).length > 0 && !verb(c, /^(?:ls|list|which|bin)$/)
        : words(c).some((w) => /^(?:install|reinstall|update|upgrade|use|global|default|alias|plugin|add|selfupdate|self-update)$/.test(w)),
  },
  {
    verdict: "ask",
    reason: INSTALLS_REASON,
    cmd: /^(?:gh|helm|vagrant|kubectl|asdf|deno)$/,
    test: (c) =>
      (verb(c, /^(?:extension|extensions|ext|plugin|plugins|krew)$/) && verb(c, /^(?:install|add|upgrade|update|remove|uninstall|rm)$/, 1)) || (c.name === "deno" && verb(c, /^(?:install|upgrade)$/)),
  },
  { verdict: "ask", reason: INSTALLS_REASON, cmd: /^(?:code|code-insiders|codium|cursor|windsurf)$/, test: (c) => c.args.some((a) => /^--(?:install|uninstall)-extension\b/.test(a)) },
  // user-wide settings
  { verdict: "ask", reason: SETTINGS_REASON, cmd: /^(?:pip[\d.]*|npm|pnpm|yarn|poetry)$/, test: (c) => verb(c, /^config$/) && words(c).some((w) => /^(?:set|unset|delete|rm|edit)$/.test(w)) },
  { verdict: "ask", reason: SETTINGS_REASON, cmd: /^python[\d.]*$/, args: / -m pip config (?:set|unset|edit) / },
  { verdict: "ask", reason: SETTINGS_REASON, cmd: /^(?:npm|pnpm)$/, test: (c) => verb(c, /^(?:set|delete)$/) },
  { verdict: "ask", reason: SETTINGS_REASON, cmd: /^(?:conda|mamba|micromamba)$/, test: (c) => verb(c, /^config$/) && c.args.some((a) => /^--(?:add|set|remove|append|prepend|remove-key)$/.test(a)) },
  { verdict: "ask", reason: SETTINGS_REASON, cmd: /^go$/, test: (c) => verb(c, /^env$/) && c.args.some((a) => /^-[wu]$/.test(a)) },
  { verdict: "ask", reason: SETTINGS_REASON, cmd: /^gem$/, test: (c) => verb(c, /^sources$/) && c.args.some((a) => /^(?:-a|--add|-r|--remove)$/.test(a)) },
  { verdict: "ask", reason: SETTINGS_REASON, cmd: /^bundle$/, test: (c) => verb(c, /^config$/) && !c.args.includes("--local") && words(c).some((w) => /^(?:set|unset)$/.test(w)) },
];
