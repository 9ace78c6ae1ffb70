function price(cents) {
  return `$${(cents / 10).toFixed(2)}`;
}

module.exports = { price };
