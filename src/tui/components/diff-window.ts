// Which rows of a patch to show when it does not fit: the changed lines first (they are what is approved), then hunk
// headers, then the context nearest to a change — shown in the patch's order. A prompt that showed `@@ … 21 more
// lines` and no change made every approval need ctrl+o.

const isChange = (l: string) => (l.startsWith("+") || l.startsWith("-")) && !l.startsWith("+++ ") && !l.startsWith("--- ");

/** Up to `rows` lines of `body` (all of it when it fits), changed lines first; `hidden` counts the lines left out. */
export function diffWindow(body: string[], rows: number): { shown: string[]; hidden: number } {
  const keep = Math.max(0, Math.floor(rows));
  if (body.length <= keep) return { shown: body, hidden: 0 };
  const changes = body.map((l, i) => (isChange(l) ? i : -1)).filter((i) => i >= 0);
  const distance = (i: number) => Math.min(...changes.map((c) => Math.abs(c - i)), body.length);
  const rank = (l: string, i: number) => (isChange(l) ? 0 : l.startsWith("@@") ? 1 : 2 + distance(i));
  const picked = body
    .map((l, i) => ({ i, r: rank(l, i) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .slice(0, keep)
    .map((x) => x.i)
    .sort((a, b) => a - b);
  return { shown: picked.map((i) => body[i]!), hidden: body.length - picked.length };
}
