const test = require("node:test");
const assert = require("node:assert");
const u = require("../src/users.js");

test("validation", () => {
  for (const id of [undefined, "", 5]) {
    assert.throws(() => u.createUser({ id, name: "x" }), TypeError);
    assert.throws(() => u.updateUser(id, {}), TypeError);
    assert.throws(() => u.deleteUser(id), TypeError);
  }
  assert.throws(() => u.createUser({ id: "v1", name: "" }), TypeError);
  u.createUser({ id: "v1", name: "Vi" });
  assert.throws(() => u.createUser({ id: "v1", name: "Vi" }), (e) => e instanceof Error && !(e instanceof TypeError));
  assert.throws(() => u.updateUser("nope", { name: "x" }), (e) => !(e instanceof TypeError));
  assert.throws(() => u.deleteUser("nope"), (e) => !(e instanceof TypeError));
  assert.throws(() => u.updateUser("v1", { id: "v2" }), TypeError);
});
