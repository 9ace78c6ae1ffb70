// No file of the project may still use the old name (the rename is complete, not aliased).
const { readdirSync, readFileSync, statSync } = require("node:fs");
const { join } = require("node:path");
const OLD = process.argv[2] || "util";
const bad = [];
const walk = (d) => { for (const n of readdirSync(d)) { if (n === ".git" || n === "node_modules") continue; const p = join(d, n); if (statSync(p).isDirectory()) walk(p); else if (readFileSync(p, "utf8").includes(OLD)) bad.push(p); } };
walk(".");
if (bad.length) { console.error(`still uses ${OLD}: ${bad.join(", ")}`); process.exit(1); }
