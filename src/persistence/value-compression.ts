// Channel values and pending writes are stored deflated once they pass a kilobyte. A delta-mode thread keeps each
// message twice (its write, replayed to rebuild older points, and the newest snapshot the head replays from), and the
// messages are most of a thread's bytes: JSON text of prose and code shrinks three to eight times. Checkpoints and
// metadata stay plain JSON, because SQL reads them (json_extract of the mode and pruned markers). The stored type
// says which rows are deflated (`json+deflate`), so rows written before this, or below the threshold, read as they
// were. Only the SQLite store uses it: its file is what sits on the user's disk. The message archive (compaction's
// originals) is stored the same way: a deflated text is a BLOB, read back through `archiveText` (also as a SQL
// function for its search).
import { deflateRawSync, inflateRawSync } from "node:zlib";

const SUFFIX = "+deflate";
/** Below this, deflate's gain does not pay for its time. */
const MIN_BYTES = 1024;

/** `[type, bytes]` as the serializer made them, deflated when large enough and smaller for it. */
export function packValue([type, bytes]: [string, Uint8Array]): [string, Uint8Array] {
  if (bytes.byteLength < MIN_BYTES) return [type, bytes];
  const packed = deflateRawSync(bytes);
  return packed.byteLength < bytes.byteLength ? [`${type}${SUFFIX}`, packed] : [type, bytes];
}

/** The serializer's `[type, data]` of a stored row, inflated when it was stored deflated. */
export function unpackValue(type: string, data: Uint8Array | string): [string, Uint8Array | string] {
  if (!type.endsWith(SUFFIX)) return [type, data];
  return [type.slice(0, -SUFFIX.length), inflateRawSync(typeof data === "string" ? Buffer.from(data, "latin1") : data)];
}

/** An archived message's text as stored: deflated (a BLOB) past the threshold, else the string itself. */
export function packText(text: string): string | Buffer {
  const [type, bytes] = packValue(["", Buffer.from(text, "utf8")]);
  return type ? Buffer.from(bytes) : text;
}

/** An archived message's text from its stored form (a string, or a BLOB `packText` deflated). */
export function archiveText(stored: string | Uint8Array | null): string {
  if (stored === null) return "";
  return typeof stored === "string" ? stored : inflateRawSync(stored).toString("utf8");
}
