const test = require("node:test");
const assert = require("node:assert");
const { apiKey } = require("../src/config.js");

test("reads API_KEY", () => assert.strictEqual(apiKey({ API_KEY: "k" }), "k"));
test("missing", () => assert.throws(() => apiKey({}), /API key missing/));
