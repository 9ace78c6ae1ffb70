// Environment variables that make a program run code: setting one (`VAR=… cmd`, `env VAR=… cmd`, `export VAR=…`)
// turns a harmless-looking command (`git fetch`, `man ls`, `ls`) into code the audit does not see, so the command
// audit asks first. The table lives in the vocabulary (code-settings.ts), where the memory reads it too.
export { CODE_ENV, type CodeEnvVar, codeEnvVar } from "../vocabulary/code-settings.js";
