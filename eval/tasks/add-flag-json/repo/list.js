#!/usr/bin/env node
// Lists the todos in todos.json: "1. [x] title".
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

function load() {
  return JSON.parse(readFileSync(join(__dirname, "todos.json"), "utf8"));
}

function main(argv) {
  for (const arg of argv) {
    console.error(`unknown option ${arg}`);
    return 2;
  }
  load().forEach((t, i) => console.log(`${i + 1}. [${t.done ? "x" : " "}] ${t.title}`));
  return 0;
}

process.exitCode = main(process.argv.slice(2));
