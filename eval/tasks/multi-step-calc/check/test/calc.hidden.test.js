const test = require("node:test");
const assert = require("node:assert");
const calc = require("../src/calc.js");

test("all four", () => {
  assert.strictEqual(calc.add(2, 3), 5);
  assert.strictEqual(calc.subtract(2, 3), -1);
  assert.strictEqual(calc.multiply(4, 3), 12);
  assert.strictEqual(calc.divide(9, 3), 3);
  assert.throws(() => calc.divide(1, 0), RangeError);
});
