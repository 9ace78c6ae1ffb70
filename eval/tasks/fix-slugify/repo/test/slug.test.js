const test = require("node:test");
const assert = require("node:assert");
const { slugify } = require("../src/slug.js");

test("words", () => assert.strictEqual(slugify("Hello World"), "hello-world"));
test("punctuation at the ends", () => assert.strictEqual(slugify("  Hello, World! "), "hello-world"));
test("inner runs collapse", () => assert.strictEqual(slugify("a -- b"), "a-b"));
