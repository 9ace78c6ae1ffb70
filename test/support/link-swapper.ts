// A background job as a sandboxed command can run one: a real child process that swaps `<dir>/<name>` between a
// regular file and a symlink to `target` as fast as it can (each swap an atomic rename, as the seventeenth pass's
// sw.py did), so a reader that checks a path and then opens it by name again meets the link in between.
import { type ChildProcess, spawn } from "node:child_process";
import { until } from "./wait.js";

const SWAPPER = `
const fs = require("node:fs"), path = require("node:path");
const [dir, name, target, benign] = process.argv.slice(1);
const at = path.join(dir, name), link = path.join(dir, ".swap-link"), file = path.join(dir, ".swap-file");
let swaps = 0;
for (;;) {
  try { fs.unlinkSync(link); } catch {}
  fs.symlinkSync(target, link);
  fs.renameSync(link, at);
  fs.writeFileSync(file, benign);
  fs.renameSync(file, at);
  if (++swaps === 100) process.stdout.write("swapping\\n");
}
`;

export interface LinkSwapper {
  stop(): Promise<void>;
}

/** Starts swapping and resolves once the child has swapped a hundred times. */
export async function startLinkSwapper(dir: string, name: string, target: string, benign: string): Promise<LinkSwapper> {
  const child: ChildProcess = spawn(process.execPath, ["-e", SWAPPER, dir, name, target, benign], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  await until(() => out.includes("swapping") || child.exitCode !== null, "the swapper to start");
  if (child.exitCode !== null) throw new Error(`the swapper exited (${child.exitCode})`);
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
