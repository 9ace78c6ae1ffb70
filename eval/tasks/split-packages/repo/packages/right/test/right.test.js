const test = require("node:test");
const assert = require("node:assert");
const { last } = require("../src/right.js");

test("last two", () => assert.deepStrictEqual(last([1, 2, 3], 2), [2, 3]));
test("default one", () => assert.deepStrictEqual(last([1, 2, 3]), [3]));
