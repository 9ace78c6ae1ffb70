// How the git guards list a folder a command could have changed. A folder made enterable but not readable (chmod 0311)
// hid what it holds from every listing, while git reaches a file inside by name: a bare repository's hook, a reflog
// link to ~/.bashrc, a legacy remote, a submodule's planted git dir stayed and ran or wrote on the host (the
// thirty-fifth pass's A35a-2 to A35a-6 and A35a-8; root lists any folder, so only a user's deerflow met it). Such a
// folder is the user's own, and only a command took the rights: the owner's are given back, with a line, and the
// listing made again (also for one that lists but cannot be entered: 0600). One that stays unlistable (another owner) throws as before, for the caller to say.
import { type Dirent, accessSync, closeSync, constants, fstatSync, openSync, readdirSync, readlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { realOrSelf } from "./real-path.js";
import { RepairLines } from "./repair-lines.js";
import { O_PATH, giveRights } from "./repair-within.js";

const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

const said = new RepairLines();

const denied = (err: unknown) => ["EACCES", "EPERM"].includes((err as NodeJS.ErrnoException).code ?? "");

/**
 * Gives the owner back read, write and search on the folder `dir` when it is this user's: opened without following a
 * link and checked to be the same folder by its real path (a job swapping it for a link in between changes nothing
 * else). True when the rights were given.
 */
function giveOwnerRights(dir: string): boolean {
  let fd: number;
  try {
    fd = openSync(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    const st = fstatSync(fd);
    if (st.uid !== process.getuid?.() || readlinkSync(`/proc/self/fd/${fd}`) !== join(realOrSelf(dirname(dir)), basename(dir))) return false;
    giveRights(fd); // through the fd: the folder opened, whatever its path names by now
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

export function listForGuard(dir: string): string[];
export function listForGuard(dir: string, withTypes: true): Dirent[];
/** readdirSync, except that a folder of this user's a command made unlistable is given back its rights first. */
export function listForGuard(dir: string, withTypes?: true): string[] | Dirent[] {
  const list = () => {
    // Listable is not enough: a folder without search (0600) lists, then every look at an entry fails (the
    // thirty-sixth pass's A36a-2 crashed the guards that way).
    accessSync(dir, constants.R_OK | constants.X_OK);
    return withTypes ? readdirSync(dir, { withFileTypes: true }) : readdirSync(dir);
  };
  try {
    return list();
  } catch (err) {
    if (!denied(err) || !giveOwnerRights(dir)) throw err;
    said.hear(`deerflow gave you back the rights on ${dir}: a command had made it unreadable, which hid what it holds from deerflow's checks while git still reaches it.`);
    return list();
  }
}

/** The lines about folders given their rights back since the last call. */
export function takeListingNotices(): string[] {
  return said.take();
}
