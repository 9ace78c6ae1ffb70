const test = require("node:test");
const assert = require("node:assert");
test("src/strings.js exports the helpers", () => {
  const m = require("../src/strings.js");
  assert.strictEqual(m.capitalize("ab"), "Ab");
  assert.deepStrictEqual(m.words(" a  b "), ["a", "b"]);
});
