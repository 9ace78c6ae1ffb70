const test = require("node:test");
const assert = require("node:assert");
const calc = require("../src/calc.js");

test("add", () => assert.strictEqual(calc.add(2, 3), 5));
