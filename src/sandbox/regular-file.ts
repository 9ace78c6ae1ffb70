// How the guards read a small file a command could have swapped: never through a link (O_NOFOLLOW), never waiting on
// a FIFO put at its name (O_NONBLOCK), and only when what was opened is a regular file within the size given.
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";

const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** The bytes of the regular file at `path` when it holds at most `maxBytes`; undefined for anything else or none. */
export function readRegularFile(path: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    return st.isFile() && st.size <= maxBytes ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
