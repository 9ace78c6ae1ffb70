const test = require("node:test");
const assert = require("node:assert");
const { toRoman } = require("../src/roman.js");

test("values", () => {
  const cases = { 1: "I", 4: "IV", 9: "IX", 14: "XIV", 40: "XL", 90: "XC", 400: "CD", 944: "CMXLIV", 1994: "MCMXCIV", 3999: "MMMCMXCIX" };
  for (const [n, r] of Object.entries(cases)) assert.strictEqual(toRoman(Number(n)), r);
});
test("range", () => {
  for (const bad of [0, -1, 4000, 1.5, NaN]) assert.throws(() => toRoman(bad), RangeError);
});
