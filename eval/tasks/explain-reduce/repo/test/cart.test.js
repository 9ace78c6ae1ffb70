const test = require("node:test");
const assert = require("node:assert");
const { total } = require("../src/cart.js");

test("sums prices", () => assert.strictEqual(total([{ price: 2 }, { price: 3 }]), 5));
