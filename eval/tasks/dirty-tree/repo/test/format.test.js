const test = require("node:test");
const assert = require("node:assert");
const { price } = require("../src/format.js");
const { greet } = require("../src/feature.js");

test("price", () => assert.strictEqual(price(1999), "$19.99"));
test("greet", () => assert.strictEqual(greet("ada"), "hello ada"));
