const { readFileSync } = require("node:fs");
const readme = readFileSync("README.md", "utf8");
const missing = ["add", "subtract", "multiply", "divide"].filter((f) => !readme.includes(f));
if (missing.length) { console.error(`README.md does not document: ${missing.join(", ")}`); process.exit(1); }
const tests = readFileSync("test/calc.test.js", "utf8");
const untested = ["subtract", "multiply", "divide"].filter((f) => !tests.includes(f));
if (untested.length) { console.error(`test/calc.test.js does not test: ${untested.join(", ")}`); process.exit(1); }
