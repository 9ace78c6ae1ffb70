const test = require("node:test");
const assert = require("node:assert");
const { parseDuration } = require("../src/duration.js");

test("units", () => {
  assert.strictEqual(parseDuration("1h30m"), 5400);
  assert.strictEqual(parseDuration("45s"), 45);
  assert.strictEqual(parseDuration("2h5s"), 7205);
  assert.strictEqual(parseDuration(" 10m "), 600);
});
test("invalid", () => {
  for (const bad of ["", "5", "1x", "30m1h", "1.5h", "h"]) assert.throws(() => parseDuration(bad), /^Error: invalid duration/, bad);
});
