// Fuzzy matching for completion menus (`/` commands, `@` paths): the query's characters in order, anywhere in the
// candidate, ranked so that what a person means comes first — a match in the file name over one spread across
// folders, a word start over a mid-word letter, a run of letters over scattered ones, a short path over a long one.
// Pure and allocation-free per candidate: `@` searches a 100k-file workspace on every keystroke.

/** Where a match may start a word: after one of these, or at the start. */
const BOUNDARY = new Set(["/", ".", "_", "-", " "]);

/**
 * How well `query` (lowercase) matches `text` whose lowercase form is `lower`; -1 when it does not (its characters
 * are not all there, in order). `nameStart`: where the last path segment begins (0 for a plain word).
 */
export function fuzzyScore(text: string, lower: string, query: string, nameStart = 0): number {
  if (query === "") return 0;
  // A run of the query in the name (the usual way of typing a file) beats everything else.
  const inName = lower.indexOf(query, nameStart);
  if (inName >= 0) return 1000 + (inName === nameStart ? 200 : BOUNDARY.has(lower[inName - 1]!) ? 100 : 0) - text.length;
  const inPath = lower.indexOf(query);
  if (inPath >= 0) return 600 + (inPath === 0 || BOUNDARY.has(lower[inPath - 1]!) ? 100 : 0) - text.length;
  let score = 0;
  let at = -1;
  let prev = -2;
  for (let q = 0; q < query.length; q++) {
    at = lower.indexOf(query[q]!, at + 1);
    if (at < 0) return -1;
    if (at === prev + 1) score += 8;
    if (at === 0 || BOUNDARY.has(lower[at - 1]!)) score += 10;
    else if (text[at] !== lower[at] && text[at - 1] === lower[at - 1]) score += 6; // camelCase hump
    if (at >= nameStart) score += 4;
    prev = at;
  }
  return score - text.length / 4;
}

/**
 * The `limit` best of `candidates` for `query` (best first; ties keep the candidates' order). `onHit` sees every
 * candidate that matches at all (a caller narrowing as the query grows keeps them).
 */
export function bestMatches<T>(candidates: readonly T[], query: string, limit: number, key: (c: T) => { text: string; lower: string; nameStart?: number }, onHit?: (c: T) => void): T[] {
  const q = query.toLowerCase();
  const top: { c: T; s: number; i: number }[] = [];
  for (let i = 0; i < candidates.length; i++) {
    const k = key(candidates[i]!);
    const s = fuzzyScore(k.text, k.lower, q, k.nameStart);
    if (s < 0) continue;
    onHit?.(candidates[i]!);
    if (top.length === limit && s <= top[top.length - 1]!.s) continue;
    // Insert in order (the list is short, so a linear step from the end is cheapest).
    let j = top.length;
    while (j > 0 && top[j - 1]!.s < s) j--;
    top.splice(j, 0, { c: candidates[i]!, s, i });
    if (top.length > limit) top.pop();
  }
  return top.map((t) => t.c);
}
