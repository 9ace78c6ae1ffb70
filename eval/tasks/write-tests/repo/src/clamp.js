function clamp(x, min, max) {
  if (min > max) throw new RangeError("clamp: min > max");
  return Math.min(Math.max(x, min), max);
}

module.exports = { clamp };
