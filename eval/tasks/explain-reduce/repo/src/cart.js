// total(items): the sum of the items' prices.
function total(items) {
  return items.map((item) => item.price).reduce((sum, price) => sum + price);
}

module.exports = { total };
