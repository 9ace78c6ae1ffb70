const { readFileSync } = require("node:fs");
const want = "part01.txt: 840\npart02.txt: 114\npart03.txt: 100\npart04.txt: 560\npart05.txt: 840\npart06.txt: 798\npart07.txt: 372\npart08.txt: 718\npart09.txt: 523\npart10.txt: 110\nsum: 4975\n";
let got = "";
try { got = readFileSync("totals.txt", "utf8"); } catch { console.error("totals.txt is missing"); process.exit(1); }
if (got.trim() !== want.trim()) { console.error(`totals.txt is wrong:\n${got}\nexpected:\n${want}`); process.exit(1); }
