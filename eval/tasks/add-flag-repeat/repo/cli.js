#!/usr/bin/env node
// echo-ish: prints its words. Options: --upper (upper-case).
function main(argv) {
  let upper = false;
  const words = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--upper") upper = true;
    else if (arg.startsWith("--")) {
      console.error(`unknown option ${arg}`);
      return 2;
    } else words.push(arg);
  }
  let text = words.join(" ");
  if (upper) text = text.toUpperCase();
  console.log(text);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
