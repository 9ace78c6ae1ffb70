function parseDuration(text) {
  throw new Error("not implemented");
}

module.exports = { parseDuration };
