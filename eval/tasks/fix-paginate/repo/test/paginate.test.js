const test = require("node:test");
const assert = require("node:assert");
const { pageCount, page } = require("../src/paginate.js");

test("partial last page", () => assert.strictEqual(pageCount(10, 3), 4));
test("exact pages", () => assert.strictEqual(pageCount(9, 3), 3));
test("empty", () => assert.strictEqual(pageCount(0, 3), 0));
test("page slices", () => assert.deepStrictEqual(page([1, 2, 3, 4], 2, 3), [4]));
