// The package as `npm pack` ships it, unpacked where npm would install it. npm cannot install the tarball offline
// (its cache holds no registry metadata: ENOTCACHED) and tests must not reach the registry, so the tarball is
// extracted by hand and its node_modules are the checkout's: the same versions the lockfile pins. What this proves
// is the packed file list and the package's own metadata (bin, exports, types), not npm's dependency resolution.
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Packs the checkout (its current build: `npm run build` first) into `dest`; returns the tarball's path. */
export async function packTarball(dest: string): Promise<string> {
  // --ignore-scripts: pack the build already made (prepare would build again).
  const packed = await execa("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dest], { cwd: ROOT, env: { ...process.env, npm_config_offline: "true" } });
  return join(dest, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
}

/** Unpacks the tarball as the package directory `pkgDir` (e.g. <project>/node_modules/deerflow), dependencies linked. */
export async function unpackInto(tarball: string, pkgDir: string): Promise<void> {
  mkdirSync(pkgDir, { recursive: true });
  await execa("tar", ["-xzf", tarball, "-C", pkgDir, "--strip-components=1"]);
  symlinkSync(join(ROOT, "node_modules"), join(pkgDir, "node_modules"));
}
