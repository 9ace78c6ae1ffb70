// last(items, n): the last n items.
function last(items, n = 1) {
  return items.slice(items.length - n - 1);
}

module.exports = { last };
