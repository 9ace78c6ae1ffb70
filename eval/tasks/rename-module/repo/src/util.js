function capitalize(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function words(s) {
  return s.split(/\s+/).filter(Boolean);
}

module.exports = { capitalize, words };
