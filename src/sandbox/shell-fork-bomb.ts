// The one shape the audit blocks before parsing: a shell function that spawns itself twice.
/** A function that calls itself twice with `|` or `&`, e.g. `:(){ :|:& };:` or `bomb(){ bomb|bomb& };bomb`. */
export function hasForkBomb(command: string): boolean {
  const code = command.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "''");
  const def = /(?:\bfunction\s+([^\s(){};|&<>'"]+)\s*(?:\(\s*\))?|([^\s(){};|&<>'"]+)\s*\(\s*\))\s*\{([^}]*)\}/g;
  for (let m = def.exec(code); m; m = def.exec(code)) {
    const name = m[1] ?? m[2]!;
    const body = m[3]!;
    const n = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (new RegExp(`(?:^|[\\s;|&])${n}\\s*[|&]\\s*${n}(?=$|[\\s;|&])`).test(` ${body} `)) return true;
  }
  return false;
}
