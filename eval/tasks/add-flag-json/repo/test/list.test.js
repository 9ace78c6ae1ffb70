const test = require("node:test");
const assert = require("node:assert");
const { spawnSync } = require("node:child_process");
const run = (...args) => spawnSync(process.execPath, ["list.js", ...args], { encoding: "utf8" });

test("plain", () => assert.strictEqual(run().stdout, "1. [ ] buy milk\n2. [x] write report\n"));
test("unknown", () => assert.strictEqual(run("--x").status, 2));
