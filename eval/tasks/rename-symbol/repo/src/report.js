const { getUsr } = require("./users.js");

function greeting(id) {
  const user = getUsr(id);
  return user ? `Hello, ${user.name}!` : "Hello, stranger!";
}

module.exports = { greeting };
