// `deerflow trust [dir]`, `--list`, `--revoke [dir]`: the user's decision that a project folder's .deerflowrc may use
// the keys that need trust (src/config/trust-keys.ts). Trust is recorded with the file's sha256: once the file
// changes, its dangerous keys are refused again until it is trusted anew.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { RC_NAME, findProjectRc } from "../../config/data-home.js";
import { readBounded } from "../../config/config-file-bytes.js";
import { readConfigFile } from "../../config/load.js";
import { withoutUntrustedKeys } from "../../config/project-trust.js";
import { digestOfBytes, readTrustRecords, revokeFolder, trustFolder, trustHomeOf } from "../../config/trust-store.js";
import { trustDigest } from "../../config/trust-digest.js";
import { UsageError } from "../../errors.js";
import { forTerminal } from "../../vocabulary/terminal-text.js";
import type { GlobalOptions } from "../main.js";

export interface TrustOptions extends GlobalOptions {
  list?: boolean;
  revoke?: boolean;
}

const print = (s: string) => process.stdout.write(`${forTerminal(s)}\n`);

function context(opts: TrustOptions) {
  const env = process.env;
  const userHome = env.HOME ?? homedir();
  const cwd = process.cwd();
  return { userHome, trustHome: trustHomeOf({ flag: opts.home, env, cwd, userHome }) };
}

/** The project file `dir` (default: the working directory) is governed by: its own, or the nearest above it. */
function projectRcOf(dir: string | undefined, userHome: string): string {
  const from = resolve(dir ?? process.cwd());
  if (!existsSync(from)) throw new UsageError(`${from} does not exist.`, "Name the project folder that holds the .deerflowrc.");
  const rc = findProjectRc(from, join(userHome, RC_NAME));
  if (!rc) throw new UsageError(`No project .deerflowrc in ${from} or above it: nothing to trust.`, "Your own ~/.deerflowrc is always trusted.");
  return rc;
}

function list(trustHome: string): number {
  const records = Object.entries(readTrustRecords(trustHome));
  if (records.length === 0) print("No trusted folders.");
  for (const [folder, r] of records) {
    const rc = join(folder, RC_NAME);
    const bytes = (() => {
      try {
        return readBounded(rc); // not a read of /dev/zero or a FIFO put there since
      } catch {
        return undefined;
      }
    })();
    const state = !existsSync(rc) ? "its .deerflowrc is gone" : bytes && digestOfBytes(rc, bytes) === r.sha256 ? "trusted" : "changed since trusted: its keys that need trust are refused";
    print(`${folder}  ${r.trustedAt.replace("T", " ").slice(0, 19)}  ${state}`);
  }
  return 0;
}

export async function trustCommand(dir: string | undefined, opts: TrustOptions): Promise<number> {
  const { userHome, trustHome } = context(opts);
  if (opts.list) return list(trustHome);
  if (opts.revoke) {
    const folder = dir ? resolve(dir) : dirname(projectRcOf(undefined, userHome));
    print(revokeFolder(trustHome, folder) ? `${folder} is no longer trusted: its .deerflowrc's keys that need trust are refused again.` : `${folder} was not trusted: nothing to revoke.`);
    return 0;
  }
  const rc = projectRcOf(dir, userHome);
  // An invalid file is not trusted: the user would be trusting something deerflow cannot show them.
  // Read once: what is shown and what is hashed are the same bytes (a second read could see another file).
  const { config, bytes } = readConfigFile(rc);
  const { folder } = trustFolder(trustHome, rc, trustDigest(rc, bytes, config));
  const wants = withoutUntrustedKeys(rc, config, "untrusted").untrusted?.wants ?? [];
  print(`Trusted ${folder} (${rc} as it is now; if it changes, deerflow refuses its keys that need trust until you trust it again).`);
  print(wants.length ? `It may now:\n${wants.map((w) => `  - ${w}`).join("\n")}` : "It sets no keys that need trust.");
  return 0;
}
