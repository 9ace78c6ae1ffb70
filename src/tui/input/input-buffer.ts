// The input line as a value: text plus cursor, edited by pure functions (so editing is tested without a terminal).
export interface InputBuffer {
  text: string;
  /** 0..text.length */
  cursor: number;
}

export const EMPTY_INPUT: InputBuffer = { text: "", cursor: 0 };

// The cursor moves and erases whole user-perceived characters (an emoji, a flag, é as e + accent), never half of a
// surrogate pair: a lone surrogate would show as � and be sent to the model as is.
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

function prevBoundary(text: string, i: number): number {
  let last = 0;
  for (const { index } of graphemes.segment(text.slice(0, i))) last = index;
  return i === 0 ? 0 : last;
}

function nextBoundary(text: string, i: number): number {
  if (i >= text.length) return text.length;
  const first = graphemes.segment(text.slice(i))[Symbol.iterator]().next();
  return first.done ? text.length : i + first.value.segment.length;
}

export function inputOf(text: string): InputBuffer {
  return { text, cursor: text.length };
}

export function insert(b: InputBuffer, s: string): InputBuffer {
  // Pasted text arrives with CR line ends from most terminals.
  const clean = s.replace(/\r\n?/g, "\n");
  return { text: b.text.slice(0, b.cursor) + clean + b.text.slice(b.cursor), cursor: b.cursor + clean.length };
}

export function deleteBack(b: InputBuffer): InputBuffer {
  if (b.cursor === 0) return b;
  const start = prevBoundary(b.text, b.cursor);
  return { text: b.text.slice(0, start) + b.text.slice(b.cursor), cursor: start };
}

export function deleteWordBack(b: InputBuffer): InputBuffer {
  const before = b.text.slice(0, b.cursor);
  const kept = before.replace(/\S+\s*$/, "");
  return { text: kept + b.text.slice(b.cursor), cursor: kept.length };
}

export function killToLineStart(b: InputBuffer): InputBuffer {
  const start = b.cursor === 0 ? 0 : b.text.lastIndexOf("\n", b.cursor - 1) + 1;
  return { text: b.text.slice(0, start) + b.text.slice(b.cursor), cursor: start };
}

export function moveLeft(b: InputBuffer): InputBuffer {
  return { ...b, cursor: prevBoundary(b.text, b.cursor) };
}

export function moveRight(b: InputBuffer): InputBuffer {
  return { ...b, cursor: nextBoundary(b.text, b.cursor) };
}

export function lineStart(b: InputBuffer): InputBuffer {
  return { ...b, cursor: b.cursor === 0 ? 0 : b.text.lastIndexOf("\n", b.cursor - 1) + 1 };
}

export function lineEnd(b: InputBuffer): InputBuffer {
  const end = b.text.indexOf("\n", b.cursor);
  return { ...b, cursor: end === -1 ? b.text.length : end };
}
