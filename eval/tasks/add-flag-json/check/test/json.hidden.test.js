const test = require("node:test");
const assert = require("node:assert");
const { spawnSync } = require("node:child_process");
const run = (...args) => spawnSync(process.execPath, ["list.js", ...args], { encoding: "utf8" });

test("--json", () => {
  const r = run("--json");
  assert.strictEqual(r.status, 0);
  assert.deepStrictEqual(JSON.parse(r.stdout), [{ title: "buy milk", done: false }, { title: "write report", done: true }]);
});
