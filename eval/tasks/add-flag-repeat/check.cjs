if (!require("node:fs").readFileSync("README.md", "utf8").includes("--repeat")) { console.error("README.md does not document --repeat"); process.exit(1); }
