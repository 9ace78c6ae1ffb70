// The README and docs/ link into each other: every relative link names a file of the repository and, with a
// "#fragment", a heading of that file (GitHub's anchors), so moving or renaming a section cannot leave a dead link.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const pages = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

function anchors(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

describe("links in the README and docs/", () => {
  it("every relative link reaches an existing file and heading", () => {
    const dead: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, fragment] = target!.split("#");
        const file = path ? join(ROOT, dirname(page), path) : join(ROOT, page);
        if (!existsSync(file)) dead.push(`${page} → ${target}`);
        else if (fragment && file.endsWith(".md") && !anchors(file).has(fragment)) dead.push(`${page} → ${target} (no such heading in ${relative(ROOT, file)})`);
      }
    }
    expect(dead).toEqual([]);
  });

  it("the README links every page of docs/", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(pages.filter((p) => p !== "README.md" && !readme.includes(`](${p}`))).toEqual([]);
  });
});
