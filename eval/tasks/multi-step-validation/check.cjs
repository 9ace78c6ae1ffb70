const t = require("node:fs").readFileSync("CHANGELOG.md", "utf8");
const unreleased = t.split("## Unreleased")[1]?.split("## 1.0.0")[0] ?? "";
if (!/valid/i.test(unreleased)) { console.error("no entry about validation under Unreleased in CHANGELOG.md"); process.exit(1); }
