function counter() {
  var count = 0;
  return () => ++count;
}

module.exports = { counter };
