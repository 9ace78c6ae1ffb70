const { words } = require("./util");

module.exports = { countWords: (s) => words(s).length };
