// One program's option table and the parser that checks arguments against it, the way getopt-style programs read
// them: short options cluster (`-la`), a value-taking letter ends its cluster (`-n5`, `-e pat`), `--name=value` or
// `--name value`, `--` ends the options. An option the table does not name — spelled exactly, in its case — is
// "unlisted": abbreviations (`--ou`, `--lesskey-sr`) and case variants (`--Lesskey-src`) that the program would
// still accept count as unlisted, so the table fails closed on spellings it never saw (the sixteenth pass).

/** `--name`, `--name=…` or a prefix of it at least `min` letters long: getopt_long (and git) take any unambiguous
 *  prefix (`--templ=tpl`, `--sp='…'` for env's --split-string). */
export function longOption(arg: string, name: string, min: number): boolean {
  const m = /^--([A-Za-z][\w-]*)(?:=|$)/.exec(arg);
  return m !== null && m[1]!.length >= min && name.startsWith(m[1]!);
}

export interface Options {
  /** Short options without a value (each may be clustered: `-la`). */
  flags: string;
  /** Short options that take one value, attached (`-n5`) or next (`-n 5`). */
  valued?: string;
  /** Long options without a value. */
  long?: readonly string[];
  /** Long options that take one value (`--max-count=3` or `--max-count 3`). */
  longValued?: readonly string[];
  /** `-5` (head, tail, git log): the obsolete count form. */
  numeric?: boolean;
  /** Digits are a count anywhere in a cluster (`grep -5n`, `git grep -1i`): each digit reads as a flag, and the rest
   *  of the cluster is still checked (`git grep -1O<cmd>` is unlisted). */
  digits?: boolean;
  /** Every value must match: for a program that goes on reading options after a value (less reads `-x4k<file>` as
   *  `-x4 -k<file>`). */
  value?: RegExp;
  /** A short option's value is only the next argument: tree 1.x reads `-L` from the next argument and goes on with
   *  the cluster (`-Lo 2 out` is `-L 2 -o out`), so an attached value is refused. */
  separateValues?: boolean;
  /** `+…` is an option (less and more run `+cmd`), not an operand. */
  plus?: boolean;
}

/** The first argument that is not on the table, or undefined (every option is listed). */
export function unlistedIn(args: readonly string[], o: Options): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return undefined;
    if (o.plus && a.startsWith("+")) return a;
    if (!a.startsWith("-") || a === "-") continue;
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      if (eq < 0 && o.long?.includes(name)) continue;
      if (!o.longValued?.includes(name)) return a;
      const value = eq < 0 ? args[++i] : a.slice(eq + 1);
      if (!valueOk(value, o, eq < 0)) return a;
      continue;
    }
    if (o.numeric && /^-\d+$/.test(a)) continue;
    const taken = shortCluster(a.slice(1), args[i + 1], o);
    if (taken === undefined) return a;
    i += taken;
  }
  return undefined;
}

/** A value given as the next argument never starts with `-`: whether the program takes it as the value or as its
 *  next option is then beside the point. */
const valueOk = (v: string | undefined, o: Options, separate: boolean) => v !== undefined && !(separate && v.startsWith("-")) && (!o.value || o.value.test(v));

/** How many following arguments a short-option cluster consumes (0 or 1), or undefined when it holds an unlisted one. */
function shortCluster(cluster: string, next: string | undefined, o: Options): number | undefined {
  for (let j = 0; j < cluster.length; j++) {
    const ch = cluster[j]!;
    if (o.valued?.includes(ch)) {
      // The rest of the cluster is its value, or the next argument is.
      if (j < cluster.length - 1) return !o.separateValues && valueOk(cluster.slice(j + 1), o, false) ? 0 : undefined;
      return valueOk(next, o, true) ? 1 : undefined;
    }
    if (o.digits && /\d/.test(ch)) continue;
    if (!o.flags.includes(ch)) return undefined;
  }
  return 0;
}
