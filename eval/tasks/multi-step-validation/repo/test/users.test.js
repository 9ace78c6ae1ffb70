const test = require("node:test");
const assert = require("node:assert");
const u = require("../src/users.js");

test("create, update, delete", () => {
  u.createUser({ id: "a", name: "Ada" });
  assert.strictEqual(u.updateUser("a", { name: "Ada L." }).name, "Ada L.");
  assert.strictEqual(u.deleteUser("a"), true);
});
