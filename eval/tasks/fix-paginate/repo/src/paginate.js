function pageCount(total, size) {
  return Math.floor(total / size);
}

function page(items, n, size) {
  return items.slice((n - 1) * size, n * size);
}

module.exports = { pageCount, page };
