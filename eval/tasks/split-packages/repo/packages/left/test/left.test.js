const test = require("node:test");
const assert = require("node:assert");
const { leftPad } = require("../src/left.js");

test("pads to n", () => assert.strictEqual(leftPad("7", 3, "0"), "007"));
test("long input unchanged", () => assert.strictEqual(leftPad("1234", 3), "1234"));
