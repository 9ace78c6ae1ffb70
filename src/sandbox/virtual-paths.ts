// Without the sandbox there is no /mnt/user-data: commands get the thread's host paths in its place, and their
// output shows the virtual paths again, so the model sees one world whether or not bwrap is there.
import { realpathSync } from "node:fs";
import { MOUNT_NAMES, SKILLS_VIRTUAL_ROOT, SandboxPathError, VIRTUAL_ROOT } from "./paths.js";
import type { ThreadPaths } from "./provider.js";

/** name → host folder of the installed skills (/mnt/skills/<name>). */
export type SkillDirs = Record<string, string> | undefined;

function pairs(paths: ThreadPaths, skillDirs?: SkillDirs): Array<{ virtual: string; hosts: string[] }> {
  const out: Array<{ virtual: string; hosts: string[] }> = [];
  for (const [name, dir] of Object.entries(skillDirs ?? {})) out.push({ virtual: `${SKILLS_VIRTUAL_ROOT}/${name}`, hosts: [dir] });
  for (const name of MOUNT_NAMES) {
    const host = paths[`${name}_path`];
    if (typeof host !== "string" || host === "") continue;
    let real = host;
    try {
      real = realpathSync(host);
    } catch {
      /* not created yet */
    }
    out.push({ virtual: `${VIRTUAL_ROOT}/${name}`, hosts: [...new Set([real, host])] });
  }
  return out;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** Where a command names the virtual folder `virtual` (followed by `/`, a quote, space or the end). */
const mentionOf = (virtual: string, flags = "") => new RegExp(`${escape(virtual)}(?![\\w.-])`, flags);

/** `/mnt/user-data/<mount>` (followed by `/`, a quote, space or the end) → the host directory. */
export function toHostPaths(command: string, paths: ThreadPaths, skillDirs?: SkillDirs): string {
  let out = command;
  for (const p of pairs(paths, skillDirs)) {
    out = out.replace(mentionOf(p.virtual, "g"), () => p.hosts[0]!);
  }
  return out;
}

/** What a host folder's path may hold to be pasted into a command line as is (no quoting can fit every context). */
const SHELL_SAFE = /^[\w./@%+,=-]+$/;

/**
 * The command as it runs without the sandbox: toHostPaths, refused (SandboxPathError) when a folder it names has a
 * path the shell would read as syntax. The audit judged the /mnt/user-data words; a folder named `proj$(cd;touch x)`
 * pasted in ran that substitution unasked (the twenty-eighth pass's A28b-3), and a space split one path into two.
 */
export function toHostCommand(command: string, paths: ThreadPaths, skillDirs?: SkillDirs): string {
  // The audit reads each word unquoted; this replaces mentions in the raw line. Where quotes or a backslash make the two
  // disagree, bash and the audit see different paths: a mention split (`/mnt/user-data/work''space`, not replaced, so
  // bash opened a shipped `D/mnt/user-data/workspace/L` the audit judged as the workspace: the thirty-second pass's
  // A32c-6), or one a quoted suffix continues (`workspace'-infra'`, replaced, so bash reached the workspace's sibling
  // folder the audit judged as `workspace-infra` inside it: A33b-4). Refused: the two must agree.
  const unquoted = command.replace(/['"\\]/g, "");
  for (const p of pairs(paths, skillDirs)) {
    const raw = [...command.matchAll(mentionOf(p.virtual, "g"))];
    const continued = raw.some((m) => /^[\w.-]/.test(command.slice(m.index + m[0].length).replace(/^['"\\]+/, "")));
    if (continued || (unquoted.match(mentionOf(p.virtual, "g"))?.length ?? 0) !== raw.length)
      throw new SandboxPathError(`${p.virtual} is split or continued by quotes or a backslash in this command (no sandbox here): write it in one piece, or name files relative to the working folder.`);
    if (!mentionOf(p.virtual).test(command)) continue;
    const bad = p.hosts.find((h) => !SHELL_SAFE.test(h));
    if (bad)
      throw new SandboxPathError(
        `${p.virtual} is ${JSON.stringify(bad)} here (no sandbox), a path with characters the shell reads as syntax: name files relative to the working folder instead of through ${VIRTUAL_ROOT}.`,
      );
  }
  return toHostPaths(command, paths, skillDirs);
}

/** Host directories of the thread → their virtual paths (longest first, so a mount inside another maps right). */
export function fromHostPaths(text: string, paths: ThreadPaths, skillDirs?: SkillDirs): string {
  const all = pairs(paths, skillDirs).flatMap((p) => p.hosts.map((h) => ({ host: h, virtual: p.virtual })));
  all.sort((a, b) => b.host.length - a.host.length);
  let out = text;
  for (const { host, virtual } of all) out = out.replace(new RegExp(`${escape(host)}(?![\\w.-])`, "g"), () => virtual);
  return out;
}
