const { capitalize, words } = require("./util.js");

function titleCase(s) {
  return words(s).map(capitalize).join(" ");
}

module.exports = { titleCase };
