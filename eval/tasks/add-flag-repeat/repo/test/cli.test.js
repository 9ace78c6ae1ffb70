const test = require("node:test");
const assert = require("node:assert");
const { spawnSync } = require("node:child_process");
const run = (...args) => spawnSync(process.execPath, ["cli.js", ...args], { encoding: "utf8" });

test("words", () => assert.strictEqual(run("hi", "there").stdout, "hi there\n"));
test("--upper", () => assert.strictEqual(run("--upper", "hi").stdout, "HI\n"));
test("unknown option", () => assert.strictEqual(run("--nope").status, 2));
