// leftPad(s, n, ch): s padded on the left with ch to length n.
function leftPad(s, n, ch = " ") {
  let out = String(s);
  while (out.length <= n) out = ch + out;
  return out;
}

module.exports = { leftPad };
