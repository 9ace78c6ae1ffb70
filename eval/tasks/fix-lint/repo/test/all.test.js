const test = require("node:test");
const assert = require("node:assert");
const { counter } = require("../src/counter.js");
const { sum } = require("../src/sum.js");

test("counter", () => {
  const next = counter();
  next();
  assert.strictEqual(next(), 2);
});
test("sum", () => assert.strictEqual(sum([1, 2, 3]), 6));
