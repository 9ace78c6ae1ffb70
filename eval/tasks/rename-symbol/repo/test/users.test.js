const test = require("node:test");
const assert = require("node:assert");
const users = require("../src/users.js");
const { greeting } = require("../src/report.js");
const { handle } = require("../src/api.js");

test("getUser", () => assert.deepStrictEqual(users.getUser?.(1), { id: 1, name: "Ada" }));
test("greeting", () => assert.strictEqual(greeting(2), "Hello, Linus!"));
test("api", () => assert.strictEqual(handle("3").status, 404));
