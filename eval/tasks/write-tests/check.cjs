// The agent's tests must pass on the real clamp and fail on each broken one.
const { execFileSync, spawnSync } = require("node:child_process");
const { copyFileSync, readFileSync, writeFileSync } = require("node:fs");
const run = () => spawnSync(process.execPath, ["--test", "test/clamp.test.js"], { encoding: "utf8" });
const real = readFileSync("src/clamp.js", "utf8");
if (run().status !== 0) { console.error("test/clamp.test.js fails on the correct clamp"); process.exit(1); }
const mutants = {
  "no upper bound": real.replace("Math.min(Math.max(x, min), max)", "Math.max(x, min)"),
  "no lower bound": real.replace("Math.min(Math.max(x, min), max)", "Math.min(x, max)"),
  "no range check": real.replace('if (min > max) throw new RangeError("clamp: min > max");', ""),
};
let survived = [];
for (const [name, code] of Object.entries(mutants)) {
  writeFileSync("src/clamp.js", code);
  if (run().status === 0) survived.push(name);
}
writeFileSync("src/clamp.js", real);
if (survived.length) { console.error(`the tests miss: ${survived.join(", ")}`); process.exit(1); }
