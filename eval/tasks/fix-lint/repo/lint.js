// The project's linter: no `var` declarations in src/.
const { readdirSync, readFileSync } = require("node:fs");
const { join } = require("node:path");
let problems = 0;
for (const name of readdirSync("src")) {
  readFileSync(join("src", name), "utf8").split("\n").forEach((line, i) => {
    if (/\bvar\s/.test(line)) {
      console.error(`src/${name}:${i + 1}: use let or const instead of var`);
      problems++;
    }
  });
}
process.exit(problems ? 1 : 0);
