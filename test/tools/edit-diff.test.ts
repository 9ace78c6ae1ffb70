// The diff of one edit: exact counts, bounded text, binary content never diffed line by line.
import { describe, expect, it } from "vitest";
import { MAX_PATCH_LINES, diffStat, editDiff } from "../../src/tools/edit-diff.js";

describe("editDiff", () => {
  it("a one-line change: unified text with 3 lines of context and exact counts", () => {
    const before = Array.from({ length: 10 }, (_, i) => `l${i}`).join("\n") + "\n";
    const d = editDiff("/w/a.txt", before, before.replace("l5", "L5"));
    expect(d).toMatchObject({ added: 1, removed: 1 });
    expect(d.patch).toBe("--- /w/a.txt\n+++ /w/a.txt\n@@ -3,7 +3,7 @@\n l2\n l3\n l4\n-l5\n+L5\n l6\n l7\n l8\n");
    expect(diffStat(d)).toBe("+1 −1");
  });

  it("a new file starts at -0,0 like GNU diff; no trailing newline is marked", () => {
    const d = editDiff("/w/n.txt", null, "a\nb");
    expect(d).toMatchObject({ created: true, added: 2, removed: 0 });
    expect(d.patch).toBe("--- /dev/null\n+++ /w/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n");
  });

  it("binary content (a NUL byte) is reported by size, never as lines", () => {
    const d = editDiff("/w/b.bin", Buffer.from([1, 0, 2]), "text\0more");
    expect(d.binary).toEqual({ before: 3, after: 9 });
    expect(d.patch).toBe("");
    expect(diffStat(d)).toBe("binary, 3 → 9 bytes");
  });

  it("a one-line change deep in a 500k-line file: the right hunk, line numbers included", () => {
    const before = Array.from({ length: 500_000 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const d = editDiff("/w/huge.txt", before, before.replace("line 250000\n", "changed\n"));
    expect(d).toMatchObject({ added: 1, removed: 1 });
    expect(d.patch).toBe("--- /w/huge.txt\n+++ /w/huge.txt\n@@ -249997,7 +249997,7 @@\n line 249997\n line 249998\n line 249999\n-line 250000\n+changed\n line 250001\n line 250002\n line 250003\n");
  });

  it("edits at the very start and end, with and without a final newline, match the library on the whole text", async () => {
    const { structuredPatch, formatPatch, FILE_HEADERS_ONLY } = await import("diff");
    const base = Array.from({ length: 30 }, (_, i) => `l${i}`);
    const cases: [string, string][] = [
      [base.join("\n") + "\n", ["X", ...base.slice(1)].join("\n") + "\n"],
      [base.join("\n") + "\n", [...base.slice(0, -1), "Y"].join("\n") + "\n"],
      [base.join("\n"), base.join("\n") + "\n"],
      [base.join("\n") + "\n", base.join("\n")],
      [base.join("\n"), [...base, "more"].join("\n")],
      ["", "a\n"],
      [base.join("\n"), base.slice(10, 20).join("\n")],
    ];
    for (const [a, b] of cases) {
      const whole = formatPatch(structuredPatch("/f", "/f", a, b, undefined, undefined, { context: 3 }), FILE_HEADERS_ONLY);
      expect(editDiff("/f", a, b).patch).toBe(whole);
    }
  });

  it("a huge rewrite is bounded: whole-file replacement past the edit-distance cap, counts still exact", () => {
    const before = Array.from({ length: 20_000 }, (_, i) => `old ${i}`).join("\n") + "\n";
    const after = Array.from({ length: 15_000 }, (_, i) => `new ${i}`).join("\n") + "\n";
    const d = editDiff("/w/big.txt", before, after);
    expect(d).toMatchObject({ added: 15_000, removed: 20_000, truncated: true });
    // What the file will hold is shown (cut at MAX_PATCH_LINES): the user approving it must see it.
    const lines = d.patch.split("\n");
    expect(lines.slice(0, 5)).toEqual(["--- /w/big.txt", "+++ /w/big.txt", "@@ whole file replaced: -20000 +15000 lines @@", "+new 0", "+new 1"]);
    expect(lines.length - 1).toBe(MAX_PATCH_LINES);
  });

  it("a new file past the edit-distance cap shows its text as added lines, like any new file", () => {
    const text = Array.from({ length: 2500 }, (_, i) => `row ${i}`).join("\n");
    const d = editDiff("/w/new.txt", null, text);
    expect(d).toMatchObject({ added: 2500, removed: 0, created: true, truncated: true });
    const lines = d.patch.split("\n");
    expect(lines.slice(0, 5)).toEqual(["--- /dev/null", "+++ /w/new.txt", "@@ -0,0 +1,2500 @@", "+row 0", "+row 1"]);
    const small = editDiff("/w/new.txt", null, "a\nb");
    expect(editDiff("/w/new.txt", null, Array.from({ length: 1200 }, () => "x").join("\n")).patch).toMatch(/^\+x\n\\ No newline at end of file\n$/m);
    expect(small.patch).toContain("\\ No newline at end of file");
  });

  it("many small changes keep exact counts; the text is cut at MAX_PATCH_LINES lines", () => {
    const before = Array.from({ length: 6000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const after = before.replace(/line (\d*[02468]0)\n/g, "LINE $1\n");
    // No time budget here: on a loaded machine the 500 ms one can run out, and the whole-file fallback is not what
    // this test is about.
    const d = editDiff("/w/many.txt", before, after, Number.POSITIVE_INFINITY);
    const changed = (before.match(/line (\d*[02468]0)\n/g) ?? []).length;
    expect(changed).toBeGreaterThan(250);
    expect(d).toMatchObject({ added: changed, removed: changed, truncated: true });
    expect(d.patch.split("\n").length - 1).toBe(MAX_PATCH_LINES);
  });

  it("a path with control characters is shown quoted and escaped: it cannot pass for diff lines", () => {
    const d = editDiff("/w/notes.txt\n@@ -1,1 +1,1 @@\n+harmless", null, "rm -rf ~\n");
    expect(d.path).toBe('"/w/notes.txt\\n@@ -1,1 +1,1 @@\\n+harmless"');
    expect(d.patch.split("\n")).toEqual(["--- /dev/null", '+++ "/w/notes.txt\\n@@ -1,1 +1,1 @@\\n+harmless"', "@@ -0,0 +1,1 @@", "+rm -rf ~", ""]);
  });
});
