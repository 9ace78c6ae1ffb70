// Text on its way to a terminal, in every mode (TUI, headless run, threads, config, doctor, error lines): escape
// sequences and control characters removed (a model's answer or a thread title could clear the screen, retitle
// the window or write the clipboard with OSC 52), and credentials inside URLs masked (a password in
// OPENAI_BASE_URL must not reach the screen or a log). The one home for both; the TUI's sanitiser uses it too.
import { maskUrlCredentials } from "./secret-shapes.js";

// CSI/OSC/other escape sequences.
// eslint-disable-next-line no-control-regex
const ANSI_RE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[P^_X][^\u001b]*(?:\u001b\\)?|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]|\u009d[^\u0007\u009c]*(?:\u0007|\u009c)?/g;
// C0 controls except tab and newline, DEL, and the C1 range (0x80-0x9f: 8-bit CSI/OSC on some terminals).
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// Bidirectional formatting controls (embeddings, overrides, isolates, marks; U+061C ARABIC LETTER MARK too): a
// U+202E in a file name or an answer reverses what follows on screen, so "evil\u202Etxt.sh" reads "evilhs.txt"
// (Trojan Source, CVE-2021-42574). Dropped rather than shown as "?": they carry no text of their own.
const BIDI_RE = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Removes escape sequences, control and bidi characters; keeps newlines and tabs; \r\n and lone \r become \n. */
export function stripControl(text: string): string {
  return text.replace(ANSI_RE, "").replace(/\r\n?/g, "\n").replace(CONTROL_RE, "").replace(BIDI_RE, "");
}

export { maskUrlCredentials };

/** What every printed string goes through. */
export function forTerminal(text: string): string {
  return maskUrlCredentials(stripControl(text));
}
