const USERS = { 1: { id: 1, name: "Ada" }, 2: { id: 2, name: "Linus" } };

function getUsr(id) {
  return USERS[id] ?? null;
}

module.exports = { getUsr };
