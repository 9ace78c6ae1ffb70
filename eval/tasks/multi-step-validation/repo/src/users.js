const users = new Map();

function createUser(user) {
  users.set(user.id, { ...user });
  return users.get(user.id);
}

function updateUser(id, changes) {
  const user = users.get(id);
  Object.assign(user, changes);
  return user;
}

function deleteUser(id) {
  return users.delete(id);
}

module.exports = { createUser, updateUser, deleteUser, users };
