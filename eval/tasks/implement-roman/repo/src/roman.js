// toRoman(n): n as a Roman numeral.
function toRoman(n) {
  // TODO
}

module.exports = { toRoman };
