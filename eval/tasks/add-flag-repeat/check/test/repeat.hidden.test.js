const test = require("node:test");
const assert = require("node:assert");
const { spawnSync } = require("node:child_process");
const run = (...args) => spawnSync(process.execPath, ["cli.js", ...args], { encoding: "utf8" });

test("--repeat 3", () => assert.strictEqual(run("--repeat", "3", "hi").stdout, "hi\nhi\nhi\n"));
test("with --upper", () => assert.strictEqual(run("--upper", "--repeat", "2", "a", "b").stdout, "A B\nA B\n"));
test("invalid n", () => {
  for (const bad of ["0", "-1", "x", "1.5"]) {
    const r = run("--repeat", bad, "hi");
    assert.strictEqual(r.status, 2, bad);
    assert.strictEqual(r.stdout, "", bad);
    assert.match(r.stderr, /repeat/, bad);
  }
});
test("missing n", () => assert.strictEqual(run("--repeat").status, 2));
