// Hostile skills on a real filesystem: front matter with escape sequences, path-like names and duplicate keys; a
// SKILL.md too big or symlinked out of its folder; a "skill" folder that is really the user's home; resource reads
// that try to leave the folder; more skills than the listing holds.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { discoverSkills } from "../../src/skills/catalog.js";
import { readSkillPath, readSkillResource } from "../../src/skills/activation.js";
import { parseSkillFile } from "../../src/skills/skill-file.js";
import { skillListing } from "../../src/tools/skill.js";
import { startLinkSwapper } from "../support/link-swapper.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function world() {
  const root = mkdtempSync(join(tmpdir(), "deerflow-skills-"));
  dirs.push(root);
  const userHome = join(root, "user");
  const home = join(root, "data");
  const cwd = join(userHome, "project");
  const skills = join(cwd, ".deerflow", "skills");
  mkdirSync(skills, { recursive: true });
  mkdirSync(join(home, "skills"), { recursive: true });
  const add = (folder: string, text: string, at = skills) => {
    mkdirSync(join(at, folder), { recursive: true });
    writeFileSync(join(at, folder, "SKILL.md"), text);
    return join(at, folder);
  };
  return { root, userHome, home, cwd, skills, add, discover: () => discoverSkills({ home, cwd, userHome }) };
}

describe("SKILL.md front matter", () => {
  it("strips escape sequences from the description and refuses them in the name; a path-like name is refused", () => {
    const ok = parseSkillFile("---\nname: tidy\ndescription: \x1b]0;pwned\x07Tidy \x1b[31mup\x1b[0m the tree\x07\n---\nbody", "tidy");
    expect(ok.description).toBe("Tidy up the tree");
    expect(() => parseSkillFile("---\nname: \x1b[2Jevil\ndescription: d\n---\nbody", "x")).toThrow(/invalid skill name/);
    expect(() => parseSkillFile("---\nname: ../../etc\ndescription: d\n---\nbody", "x")).toThrow(/invalid skill name/);
    expect(() => parseSkillFile("---\nname: Big-Name\ndescription: d\n---\nbody", "x")).toThrow(/invalid skill name/);
  });

  it("reads Claude Code style files: block-scalar descriptions, nested metadata and unknown keys are fine; a duplicate key is refused", () => {
    const s = parseSkillFile(
      "---\nname: pdf\ndescription: |\n  Extract text from PDFs.\n  Use for forms.\nallowed-tools: Read, Grep\nmetadata:\n  version: 1.0\n  tags: [a, b]\n---\n# PDF\nSteps.",
      "pdf",
    );
    expect(s).toEqual({ name: "pdf", description: "Extract text from PDFs. Use for forms.", body: "# PDF\nSteps." });
    const folded = parseSkillFile("---\nname: pdf\ndescription: >\n  Extract text\n  from PDFs.\n---\nbody", "pdf");
    expect(folded.description).toBe("Extract text from PDFs.");
    // Which `name` would be meant is ambiguous (js-yaml, which the peers use, refuses it too): never the injected one.
    expect(() => parseSkillFile("---\nname: pdf\ndescription: d\nname: hijack\n---\nbody", "pdf")).toThrow(/front matter is not valid YAML \(line 4\): Map keys must be unique/);
  });

  it("a front matter that expands aliases without bound (a billion laughs) is refused, quickly", () => {
    const laughs = ["a: &a [x, x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 8 }, (_, i) => `${"bcdefghi"[i]}: &${"bcdefghi"[i]} [${Array(10).fill(`*${"abcdefgh"[i]}`).join(", ")}]`)];
    expect(() => parseSkillFile(`---\nname: lol\ndescription: d\n${laughs.join("\n")}\n---\nbody`, "lol")).toThrow(/front matter is not valid YAML/);
  });

  it("needs front matter, a description and a body", () => {
    expect(() => parseSkillFile("no front matter", "x")).toThrow(/missing front matter/);
    expect(() => parseSkillFile("---\nname: x\n", "x")).toThrow(/not closed/);
    expect(() => parseSkillFile("---\nname: x\n---\nbody", "x")).toThrow(/description/);
    expect(() => parseSkillFile("---\nname: x\ndescription: d\n---\n\n", "x")).toThrow(/empty/);
  });
});

describe("skill discovery", () => {
  it("refuses a SKILL.md over 64 KB, one symlinked out of its folder, and a folder that is the user's home", () => {
    const w = world();
    w.add("good", "---\nname: good\ndescription: fine\n---\nbody");
    w.add("huge", `---\nname: huge\ndescription: big\n---\n${"x".repeat(70 * 1024)}`);
    mkdirSync(join(w.skills, "linked"));
    writeFileSync(join(w.root, "outside.md"), "---\nname: linked\ndescription: d\n---\nsecret body");
    symlinkSync(join(w.root, "outside.md"), join(w.skills, "linked", "SKILL.md"));
    // A "skill" that is the user's home (with a SKILL.md planted in it) would show ~/.ssh at /mnt/skills/home.
    writeFileSync(join(w.userHome, "SKILL.md"), "---\nname: home\ndescription: d\n---\nbody");
    symlinkSync(w.userHome, join(w.skills, "home"));
    const c = w.discover();
    expect(c.skills.map((s) => s.name)).toEqual(["good"]);
    expect(c.problems.join("\n")).toMatch(/huge\/SKILL\.md: it is \d+ bytes, over the limit/);
    expect(c.problems.join("\n")).toMatch(/linked\/SKILL\.md: it is a symlink that leads outside/);
    expect(c.problems.join("\n")).toMatch(/home\/SKILL\.md: its folder is .*your home directory/);
  });

  it("nearest first: a project skill overrides the user's skill of the same name; at most 100 are listed", () => {
    const w = world();
    w.add("same", "---\nname: same\ndescription: project copy\n---\nP");
    w.add("same", "---\nname: same\ndescription: user copy\n---\nU", join(w.home, "skills"));
    for (let i = 0; i < 120; i++) w.add(`s${String(i).padStart(3, "0")}`, `---\nname: s${String(i).padStart(3, "0")}\ndescription: ${"long ".repeat(100)}\n---\nb`, join(w.home, "skills"));
    const c = w.discover();
    expect(c.skills).toHaveLength(100);
    expect(c.skills.find((s) => s.name === "same")!.description).toBe("project copy");
    expect(c.problems.filter((p) => p.includes("more than 100 skills"))).toHaveLength(21);
    const listing = skillListing(c);
    expect(listing.length).toBeLessThan(12_500);
    expect(listing).toMatch(/more skills not listed/);
  });
});

describe("reading a skill's files", () => {
  it("stays inside the folder: traversal, absolute paths and symlinks out are refused; .deerflowrc is never read", () => {
    const w = world();
    const dir = w.add("tool", "---\nname: tool\ndescription: d\n---\nbody");
    writeFileSync(join(dir, "ref.md"), "REFERENCE");
    writeFileSync(join(w.root, "secret.txt"), "TOP SECRET");
    symlinkSync(join(w.root, "secret.txt"), join(dir, "leak.md"));
    writeFileSync(join(dir, ".deerflowrc"), '{"apiKey": "sk-live-abcdefghijklmnop"}');
    const skill = w.discover().skills[0]!;
    expect(readSkillResource(skill, "ref.md")).toBe("REFERENCE");
    expect(readSkillResource(skill, "/mnt/skills/tool/ref.md")).toBe("REFERENCE");
    expect(() => readSkillResource(skill, "../../../secret.txt")).toThrow(/not a file of the skill/);
    expect(() => readSkillResource(skill, "/etc/passwd")).toThrow(/not a file of the skill/);
    expect(() => readSkillResource(skill, "leak.md")).toThrow(/symlink that leads outside/);
    expect(() => readSkillResource(skill, ".deerflowrc")).toThrow(/never read/);
    const dirs = { tool: skill.dir };
    expect(readSkillPath("/mnt/skills/tool/ref.md", dirs).data.toString()).toBe("REFERENCE");
    expect(() => readSkillPath("/mnt/skills/tool/../tool/leak.md", dirs)).toThrow(/symlink that leads outside/);
    expect(() => readSkillPath("/mnt/skills/tool/../../../etc/passwd", dirs)).toThrow(/not a file of an installed skill/);
    expect(() => readSkillPath("/mnt/skills/other/ref.md", dirs)).toThrow(/not a file of an installed skill/);
  });

  it("a file swapped for a link to a host file while it is read never yields the host file (the seventeenth pass's AG1)", async () => {
    const w = world();
    const dir = w.add("notes", "---\nname: notes\ndescription: d\n---\nbody");
    writeFileSync(join(dir, "ref.md"), "REFERENCE");
    writeFileSync(join(w.root, "token"), "SOMEAPP-TOKEN");
    const skill = w.discover().skills[0]!;
    const swapper = await startLinkSwapper(dir, "ref.md", join(w.root, "token"), "REFERENCE");
    const seen = new Set<string>();
    try {
      for (let i = 0; i < 1000; i++) {
        for (const read of [() => readSkillResource(skill, "ref.md"), () => readSkillPath("/mnt/skills/notes/ref.md", { notes: skill.dir }).data.toString()]) {
          try {
            seen.add(read());
          } catch (err) {
            seen.add((err as Error).message.replace(/.*: /, ""));
          }
        }
      }
    } finally {
      await swapper.stop();
    }
    expect([...seen].join("\n")).not.toContain("SOMEAPP-TOKEN");
    // Both sides of the swap were met: the race was run, not missed.
    expect(seen).toContain("REFERENCE");
    expect([...seen].some((s) => /symlink that leads outside/.test(s))).toBe(true);
  });
});
