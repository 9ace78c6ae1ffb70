// Where credentials live on a machine: the one list the sandbox hides (bwrap-args.ts covers each that exists) and
// the memory refuses to remember a fact about (memory/fact-policy.ts), so a path added for one is caught by the
// other. Plain arrays of paths under the user's home, and system files; add new ones here, never beside a copy.

/** Secret directories under the user's home (hidden by the sandbox as empty directories). */
export const HOME_SECRET_DIRS: readonly string[] = [
  ".ssh", ".aws", ".gnupg", ".config/gh", ".docker", ".kube", ".password-store", ".azure", ".config/gcloud",
  ".local/share/keyrings", ".mozilla", ".config/google-chrome", ".config/chromium", ".terraform.d",
];
/** Secret files under the user's home (hidden by the sandbox as /dev/null). */
export const HOME_SECRET_FILES: readonly string[] = [
  ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".config/git/credentials", ".pgpass", ".cargo/credentials.toml",
  ".cargo/credentials", ".deerflowrc",
];
/** Readable by root even without capabilities (their owner is root). */
export const SYSTEM_SECRET_FILES: readonly string[] = ["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-"];
