// Where credentials live on a machine: the one list the sandbox hides (bwrap-args.ts covers each that exists) and
// the memory refuses to remember a fact about (memory/fact-policy.ts), so a path added for one is caught by the
// other. Plain arrays of paths under the user's home, and system files; add new ones here, never beside a copy.

/** Secret directories under the user's home (hidden by the sandbox as empty directories). */
export const HOME_SECRET_DIRS: readonly string[] = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gh",
  ".docker",
  ".kube",
  ".password-store",
  ".azure",
  ".config/gcloud",
  ".local/share/keyrings",
  ".mozilla",
  ".config/google-chrome",
  ".config/chromium",
  ".terraform.d",
  ".config/openai",
  // Other agents' and tools' logins (the fifth adversarial pass read each of these through the sandbox).
  ".codex",
  ".claude",
  ".kaggle",
  ".config/github-copilot",
  ".pulumi",
  ".config/configstore",
  // Oracle Cloud's keys and config, the 1Password CLI's sessions (A37b-1).
  ".oci",
  ".config/op",
  // Shell start-up directories (snippets that export keys).
  ".bashrc.d",
  ".config/environment.d",
  ".config/fish",
];
/**
 * Secret files under the user's home (hidden by the sandbox as /dev/null; a name that is a directory on this machine
 * is hidden as an empty one: ~/.config/hub is a file or a directory depending on hub's version).
 */
export const HOME_SECRET_FILES: readonly string[] = [
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".config/git/credentials",
  ".pgpass",
  ".cargo/credentials.toml",
  ".cargo/credentials",
  ".deerflowrc",
  ".vault-token",
  ".config/rclone/rclone.conf",
  ".m2/settings.xml",
  ".gradle/gradle.properties",
  ".config/hub",
  ".env",
  ".s3cfg",
  ".yarnrc.yml",
  ".gem/credentials",
  // The rbenv-vars and pyenv-vars plugins' global files (`$(rbenv root)/vars`), where they tell users to keep
  // SECRET_KEY_BASE and database URLs: inside a toolchain folder the sandbox binds back (A37b-2).
  ".rbenv/vars",
  ".pyenv/vars",
  // Tools' own login files the thirty-seventh pass named (A37b-1): pnpm's global rc, Terraform's CLI config,
  // Composer's auth, DigitalOcean's and Fly's CLI configs.
  ".config/pnpm/rc",
  ".terraformrc",
  ".composer/auth.json",
  ".config/composer/auth.json",
  ".config/doctl/config.yaml",
  ".fly/config.yml",
  ".cache/huggingface/token",
  ".huggingface/token",
  ".claude.json",
  // Shell start-up files: where `export OPENAI_API_KEY=…` usually lives. Commands in the sandbox never read them
  // (bash -c is not interactive), and the environment they would set is inherited, scrubbed, from deerflow.
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".bash_aliases",
  ".pam_environment",
  // Shell and REPL histories: the commands typed, with the passwords and tokens pasted into them.
  ".bash_history",
  ".zsh_history",
  ".histfile",
  ".sh_history",
  ".local/share/fish/fish_history",
  ".python_history",
  ".node_repl_history",
  ".psql_history",
  ".mysql_history",
  ".sqlite_history",
  ".rediscli_history",
  ".irb_history",
  ".lesshst",
  ".wget-hsts",
];
/** Readable by root even without capabilities (their owner is root). */
export const SYSTEM_SECRET_FILES: readonly string[] = ["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-"];
