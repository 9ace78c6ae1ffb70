const test = require("node:test");
const assert = require("node:assert");
const { titleCase } = require("../src/title.js");
const { countWords } = require("../src/count.js");
const { capitalize } = require("../src/util.js");

test("title", () => assert.strictEqual(titleCase("hello big world"), "Hello Big World"));
test("count", () => assert.strictEqual(countWords(" a b  c "), 3));
test("capitalize", () => assert.strictEqual(capitalize("x"), "X"));
