const { readFileSync } = require("node:fs");

// Reads KEY=value lines of a .env file.
function loadEnv(file = ".env") {
  const out = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]] = m[2];
  }
  return out;
}

function apiKey(env = loadEnv()) {
  const key = env.API_TOKEN;
  if (!key) throw new Error("API key missing: set API_KEY in .env");
  return key;
}

module.exports = { loadEnv, apiKey };
