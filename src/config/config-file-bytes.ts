// The bytes of a .deerflowrc, read safely: the file may come from a cloned repository.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { ConfigError } from "../errors.js";

/** Largest .deerflowrc read: a settings file is a few kilobytes. */
export const CONFIG_MAX_BYTES = 1024 * 1024;

/**
 * A config file's bytes: a regular file only, at most CONFIG_MAX_BYTES. A repository can ship `.deerflowrc` as a link
 * to /dev/zero (the tenth adversarial pass: every command hung, memory growing) or a FIFO; the open never blocks.
 */
export function readBounded(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  } catch (err) {
    throw new ConfigError(`Cannot read ${path}: ${(err as Error).message}.`, { file: path });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      throw new ConfigError(`Cannot read ${path}: not a regular file (a device, FIFO, socket or folder, or a link to one).`, {
        file: path,
        hint: "Remove it, or make it a JSON file.",
      });
    }
    if (st.size > CONFIG_MAX_BYTES) {
      throw new ConfigError(`Cannot read ${path}: ${st.size} bytes, more than the ${CONFIG_MAX_BYTES}-byte limit of a config file.`, { file: path });
    }
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

/** A config file's text: a UTF-8 byte order mark (Windows editors write one) is not part of the JSON. */
export function configText(bytes: Buffer): string {
  return bytes.toString("utf8").replace(/^\uFEFF/, "");
}
