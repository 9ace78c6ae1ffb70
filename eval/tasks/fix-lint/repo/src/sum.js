function sum(xs) {
  var total = 0;
  for (var i = 0; i < xs.length; i++) total += xs[i];
  return total;
}

module.exports = { sum };
