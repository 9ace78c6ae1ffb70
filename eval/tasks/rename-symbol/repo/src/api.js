const { getUsr } = require("./users.js");

// GET /users/:id
function handle(id) {
  const user = getUsr(Number(id));
  return user ? { status: 200, body: user } : { status: 404, body: { error: "not found" } };
}

module.exports = { handle };
