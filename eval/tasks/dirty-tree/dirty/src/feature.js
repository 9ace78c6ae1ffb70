function greet(name) {
  return `hello ${name}`;
}

// Work in progress: shout() for the banner.
function shout(name) {
  return greet(name).toUpperCase() + "!";
}

module.exports = { greet, shout };
