// The keys of a git config file's text, read the plain way (sections, subsections, `name = value` lines), without git:
// fast enough to run the moment a file appears. For a first look only: what git itself lists decides any repair.
const SECTION = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/;
const KEY = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=|$|[#;])/;

/** `section.name` or `section.subsection.name`, lower-case (the subsection as written), for each key line. */
export function configTextKeys(text: string): string[] {
  const keys: string[] = [];
  let section: string | undefined;
  for (const raw of text.split("\n")) {
    let line = raw;
    const s = SECTION.exec(line);
    if (s) {
      const [name, sub] = s[1]!.toLowerCase().split(".", 2);
      section = s[2] !== undefined ? `${name}.${s[2]}` : sub !== undefined ? `${name}.${sub}` : name;
      line = line.slice(s[0].length); // `[core] fsmonitor = x` on one line
    }
    const k = KEY.exec(line);
    if (k && section !== undefined) keys.push(`${section}.${k[1]!.toLowerCase()}`);
  }
  return keys;
}
