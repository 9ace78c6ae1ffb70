// The bubblewrap command line of a sandbox session. Order matters (later mounts cover earlier ones):
//   1. the host read-only, fresh /dev, its own /proc (own PID namespace), private /tmp;
//   2. the user's home emptied (a tmpfs) with its toolchains bound back read-only (sandbox-home.ts), then the user's
//      extra read-only / read-write paths, then the workspace read-write at its real path;
//   3. secrets covered: the data directory by an empty tmpfs, ~/.ssh & co. by empty tmpfs, files by /dev/null;
//   4. the thread's own directories bound again at their real paths (they live inside the data directory), and
//      at /mnt/user-data/{workspace,uploads,outputs} (a tmpfs on /mnt first: binding under it needs one);
//   5. secret files inside a bound directory covered again at every place they are visible.
// Capabilities are dropped (as root, the sandbox would otherwise keep CAP_SYS_ADMIN and could remount / rw).
import { existsSync, lstatSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { MOUNT_NAMES, SKILLS_VIRTUAL_ROOT, VIRTUAL_ROOT, isInside } from "./paths.js";
import type { ThreadPaths } from "./provider.js";
import { gitCodePaths, gitDirOf } from "./git-code-paths.js";
import { gitCodePathsInside } from "./repo-code-paths.js";
import { type ShellSettings, confinedNetwork } from "./shell-settings.js";
import { homeToolchainPaths, sandboxGitconfig, toolchainSecrets } from "./sandbox-home.js";
import { SYSTEM_SECRET_FILES } from "../vocabulary/secret-paths.js";
import { type SecretLocations, movedAppFolders, secretLocations } from "./secret-locations.js";
import { realOrSelf as real } from "./real-path.js";
import { PROXY_DIR_PREFIX } from "./network-proxy.js";
import { hostSocketPaths } from "./host-sockets.js";
import { type SandboxFolders, withoutPlantedLinks } from "./planted-links.js";

/**
 * Sockets that hand out more than the sandbox has: a read-only bind does not stop connect(), and the container
 * daemons' sockets are root on the host. The user's runtime directory holds their agents (ssh, gpg) and buses.
 */
// Root-equivalent daemons (containers, VMs with host disks) and the system bus (polkit lets a local session reboot,
// mount): hidden with the network on too. The eleventh pass reached LXD's snap socket.
const DAEMON_SOCKETS = [
  "/var/run/docker.sock",
  "/run/docker.sock",
  "/run/containerd/containerd.sock",
  "/run/podman/podman.sock",
  "/run/buildkit/buildkitd.sock",
  "/var/snap/lxd/common/lxd/unix.socket",
  "/var/lib/lxd/unix.socket",
  "/var/lib/incus/unix.socket",
  "/run/incus/unix.socket",
  "/var/run/libvirt/libvirt-sock",
  "/run/libvirt/libvirt-sock",
  "/run/k3s/containerd/containerd.sock",
  "/var/run/crio/crio.sock",
  "/run/dbus/system_bus_socket",
];
const RUNTIME_DIRS = ["/run/user", "/var/run/user"];
/**
 * With the network off or proxied (not "host"), where host services keep their Unix sockets (a network namespace cuts abstract sockets, not
 * ones with a path: psql reached the local PostgreSQL at /var/run/postgresql). An empty tmpfs over each, and every
 * other socket path the host has bound (/proc/net/unix) covered by /dev/null.
 * A socket bound AFTER the session started (say in /var/tmp, during a long chat) is not covered by mounts made
 * before it: the session is restarted before the next command when one appeared and nothing runs in it
 * (shell-session.ts, run-shell.ts). Known limits, decided (issue 26 re-check): while a background job runs, the
 * session is kept (restarting would kill the user's job), so a socket bound meanwhile stays reachable until it
 * ends; a host socket inside the thread's own read-write directories is reachable (the workspace is the command's
 * to use, its own servers included); so is one bound in another network namespace (not in our /proc/net/unix), and
 * one renamed or hard-linked after it was bound, or bound by a relative name by a process that has since changed
 * folder (host-sockets.ts).
 * A seccomp filter refusing socket(AF_UNIX) would close all of these but breaks tools using Unix sockets inside.
 */
const SOCKET_DIRS = ["/run", "/var/run"];

function isRegularFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

type MountName = (typeof MOUNT_NAMES)[number];

/** Real host path of each thread directory that is set (library callers may give only a workspace). */
function threadMounts(paths: ThreadPaths): { workspace: string } & Partial<Record<MountName, string>> {
  const out: Partial<Record<MountName, string>> = {};
  for (const name of MOUNT_NAMES) {
    const p = paths[`${name}_path`];
    if (typeof p === "string" && p !== "") out[name] = real(p);
  }
  return out as { workspace: string } & Partial<Record<MountName, string>>;
}

/** Where host services keep sockets, emptied by a tmpfs when the network is off. */
function socketDirsOf(settings: ShellSettings): string[] {
  return !confinedNetwork(settings) ? [] : [...new Set(SOCKET_DIRS.filter((d) => existsSync(d)).map(real))];
}

/** The secret directories, emptied by a tmpfs: the data directory, ~/.ssh & co., the runtime directories. */
export function hiddenDirsOf(settings: ShellSettings, locations?: SecretLocations): string[] {
  const home = real(settings.userHome);
  // A moved application folder the user gave the sandbox (or one inside it, or around it) stays theirs to give.
  const granted = [...settings.readWrite, ...settings.readOnly].map(real);
  const apps = movedAppFolders(home).filter((d) => !granted.some((g) => isInside(g, d) || isInside(d, g)));
  const secrets = [...(locations ?? secretLocations(home)).dirs, ...apps];
  return [...new Set([real(settings.dataDir), ...secrets, ...RUNTIME_DIRS.map(real), ...(settings.hiddenDirs ?? []).map(real)])].filter((d) => existsSync(d));
}

/**
 * With the network off or proxied, the host's socket paths to cover with /dev/null: those bound now (/proc/net/unix) and not
 * already under a tmpfs of ours (binding there would first need its parents made) nor in the thread's own
 * directories (the command's to use), nor a session's network proxy (the way out it is given, bound later). The
 * session compares this list before each command (shell-session.ts).
 */
export function socketsToHide(paths: ThreadPaths, settings: ShellSettings, hiddenDirs: string[]): string[] {
  if (!confinedNetwork(settings)) return [];
  const thread = threadMounts(paths);
  const mounts = MOUNT_NAMES.flatMap((n) => (thread[n] === undefined ? [] : [thread[n]!]));
  const covered = [...socketDirsOf(settings), "/tmp", "/dev", "/proc", ...hiddenDirs, ...mounts];
  return hostSocketPaths()
    .map(real)
    .filter((f) => !covered.some((d) => isInside(f, d)) && !basename(dirname(f)).startsWith(PROXY_DIR_PREFIX));
}

/**
 * What the user's git runs that lies in a `sandbox.readWrite` folder (a global config, an include, a hooks folder or a
 * program its config names: `~/.config` made writable holds `~/.config/git/config`): read-only, and each folder above it
 * a mount point, as in the workspace (the fourteenth pass's G4). One not there yet is moved aside after the command
 * that creates it (git-redirect-guard.ts).
 */
function readWriteGitCodeArgs(workspace: string, readWrite: string[]): string[] {
  const a: string[] = [];
  for (const folder of readWrite) {
    if (!existsSync(folder)) continue;
    const codePaths = gitCodePathsInside(workspace, folder)
      .map((c) => c.path)
      .filter((p) => existsSync(p));
    for (const d of foldersAbove(codePaths, real(folder), undefined)) a.push("--bind", d, d);
    for (const p of codePaths) a.push("--ro-bind", p, p);
  }
  return a;
}

/** The folders between the workspace and each code path outside `.git`, outermost first, once each. */
function foldersAbove(paths: string[], workspace: string, gitDir: string | undefined): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    if (gitDir && isInside(p, gitDir)) continue;
    const chain: string[] = [];
    for (let d = dirname(p); d !== workspace && isInside(d, workspace); d = dirname(d)) chain.unshift(d);
    for (const d of chain) out.add(d);
  }
  return [...out];
}

/** The home as an allow list: an empty tmpfs, the toolchains read-only, a `.gitconfig` with only the identity. */
function homeArgs(home: string, dataDir: string): string[] {
  if (home === "/" || !isDirectory(home)) return [];
  const a = ["--tmpfs", home];
  const bound = homeToolchainPaths(home);
  for (const p of bound) a.push("--ro-bind", p, p);
  const secrets = toolchainSecrets(home, bound);
  for (const d of secrets.dirs) a.push("--tmpfs", d);
  for (const f of secrets.files) a.push("--ro-bind", "/dev/null", f);
  const gitconfig = sandboxGitconfig(real(dataDir), home);
  if (gitconfig) a.push("--ro-bind", gitconfig, join(home, ".gitconfig"));
  return a;
}

/**
 * git's code-running files of the workspace's repository: read-only at both of its paths (git-code-paths.ts), inside a
 * .git that is itself a mount point, so it cannot be renamed away and replaced by a writable copy.
 */
function gitCodeArgs(workspace: string): string[] {
  const a: string[] = [];
  const gitDir = gitDirOf(workspace);
  if (gitDir) a.push("--bind", gitDir, gitDir, "--bind", gitDir, join(VIRTUAL_ROOT, "workspace", ".git"));
  // A linked worktree's or a submodule's `.git` FILE says where its git dir is: read-only, and a mount point.
  const dotGit = join(workspace, ".git");
  if (!gitDir && isRegularFile(dotGit)) a.push("--ro-bind", dotGit, dotGit, "--ro-bind", dotGit, join(VIRTUAL_ROOT, "workspace", ".git"));
  const codePaths = gitCodePaths(workspace);
  // A hooks folder in the worktree (.husky/_) gets the same: each folder above it is a mount point of its own, so
  // `mv .husky .h && mkdir -p .husky/_` cannot put a writable folder where git looks.
  for (const d of foldersAbove(codePaths, workspace, gitDir)) {
    a.push("--bind", d, d, "--bind", d, join(VIRTUAL_ROOT, "workspace", relative(workspace, d)));
  }
  for (const p of codePaths) {
    a.push("--ro-bind", p, p, "--ro-bind", p, join(VIRTUAL_ROOT, "workspace", relative(workspace, p)));
  }
  return a;
}

/** Skills: read-only at /mnt/skills/<name> (their folders may live in the hidden data directory), unless planted. */
function skillBindArgs(skillDirs: Record<string, string>, where: SandboxFolders): string[] {
  const a: string[] = [];
  const skills = Object.entries(skillDirs);
  const bound = new Set(
    withoutPlantedLinks(
      skills.map(([, dir]) => dir),
      "skill folder",
      where,
    ),
  );
  for (const [name, dir] of skills) if (bound.has(dir) && existsSync(dir)) a.push("--ro-bind", real(dir), `${SKILLS_VIRTUAL_ROOT}/${name}`);
  return a;
}

/** The user's `sandbox.readOnly` and (already checked) `readWrite` folders, at their real paths, where they exist. */
function configuredBindArgs(readOnly: string[], readWrite: string[], where: SandboxFolders): string[] {
  const a: string[] = [];
  for (const p of withoutPlantedLinks(readOnly, "sandbox.readOnly", where)) if (existsSync(p)) a.push("--ro-bind", real(p), real(p));
  for (const p of readWrite) if (existsSync(p)) a.push("--bind", real(p), real(p));
  return a;
}

/**
 * `proxyDir`: the network proxy's private folder (network-proxy.ts), bound at its own path: the only way out of the
 * session's own network namespace. The namespace follows the settings (confinedNetwork), not the folder: a caller
 * that forgets the proxy gets no network, never the host's; only `hostNetwork` shares it.
 */
export function bwrapArgs(paths: ThreadPaths, settings: ShellSettings, command: string[], proxyDir?: string): string[] {
  const thread = threadMounts(paths);
  const names = MOUNT_NAMES.filter((n) => thread[n] !== undefined);
  const home = real(settings.userHome);
  const a: string[] = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  // Its own IPC namespace: the host's System V shared memory, queues and semaphores stay out of reach (A40b-4).
  a.push("--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session", "--cap-drop", "ALL");
  if (confinedNetwork(settings)) a.push("--unshare-net");
  for (const d of socketDirsOf(settings)) a.push("--tmpfs", d);
  a.push(...homeArgs(home, settings.dataDir));

  const where = { workspace: thread.workspace, threadDirs: names.map((n) => thread[n]!), dataDir: settings.dataDir };
  const readWrite = withoutPlantedLinks(settings.readWrite, "sandbox.readWrite", where);
  a.push(...configuredBindArgs(settings.readOnly, readWrite, where));
  a.push("--bind", thread.workspace, thread.workspace);

  // Secret directories: an empty tmpfs over each one that exists.
  const locations = secretLocations(home);
  const hiddenDirs = hiddenDirsOf(settings, locations);
  for (const d of hiddenDirs) a.push("--tmpfs", d);
  // The thread's own directories reappear inside the hidden data directory.
  for (const name of names) {
    const p = thread[name]!;
    if (hiddenDirs.some((d) => isInside(p, d)) || name !== "workspace") a.push("--bind", p, p);
  }
  a.push("--tmpfs", "/mnt");
  for (const name of names) a.push("--bind", thread[name]!, `${VIRTUAL_ROOT}/${name}`);
  // Skills: read-only, at /mnt/skills/<name> (their folders may live in the hidden data directory).
  a.push(...skillBindArgs(settings.skillDirs ?? {}, where));

  a.push(...gitCodeArgs(thread.workspace));
  a.push(...readWriteGitCodeArgs(thread.workspace, readWrite));
  // Once more after those binds: a folder bound above a git code path (a global config kept in a dotfiles folder
  // beside `.ssh`) would show a hidden folder under it again. Not one that holds a thread's folder (the data directory).
  for (const d of hiddenDirs) if (!names.some((n) => isInside(thread[n]!, d))) a.push("--tmpfs", d);

  // Secret files, at their real path and wherever a bound directory shows them again.
  const agentSocket = process.env.SSH_AUTH_SOCK ? [real(process.env.SSH_AUTH_SOCK)] : [];
  // With the network off or proxied, the host's socket paths too.
  const sockets = socketsToHide(paths, settings, hiddenDirs);
  const homeFiles = locations.files;
  // A listed name that is a directory here (~/.config/hub) cannot take /dev/null: an empty tmpfs instead.
  for (const d of homeFiles.filter(isDirectory)) a.push("--tmpfs", d);
  const files = [
    ...SYSTEM_SECRET_FILES,
    ...DAEMON_SOCKETS.map(real),
    ...agentSocket,
    ...homeFiles.filter((f) => !isDirectory(f)),
    ...settings.hiddenFiles.map(real),
    join(thread.workspace, ".deerflowrc"),
    ...sockets,
  ].filter((f) => existsSync(f));
  const seen = new Set<string>();
  const hideFile = (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    a.push("--ro-bind", "/dev/null", f);
  };
  for (const f of files) {
    hideFile(f);
    for (const name of names) {
      if (isInside(f, thread[name]!) && f !== thread[name]) hideFile(join(VIRTUAL_ROOT, name, relative(thread[name]!, f)));
    }
  }
  // A hidden directory inside the workspace (e.g. -w $HOME --allow-dangerous-workspace) is hidden under /mnt too.
  for (const d of hiddenDirs) {
    if (isInside(d, thread.workspace) && d !== thread.workspace) {
      const v = join(VIRTUAL_ROOT, "workspace", relative(thread.workspace, d));
      a.push("--tmpfs", v);
      for (const name of names) {
        if (name !== "workspace" && isInside(thread[name]!, d)) a.push("--bind", thread[name]!, join(v, relative(d, thread[name]!)));
      }
    }
  }
  // Last, so no hidden folder covers it (the tmp folder may be anywhere).
  if (proxyDir !== undefined) a.push("--ro-bind", proxyDir, proxyDir);
  a.push("--chdir", thread.workspace, "--", ...command);
  return a;
}
