// What the runtime bundle exports (scripts/bundle-runtime.mjs → dist/runtime-bundle/runtime.cjs): the chat's session
// and every command that loads the runtime. One bundle, so `run`, `threads`, `eval`… start from one file compiled
// through V8's code cache (load-runtime.ts) instead of ~1,500 ES modules, and each process has one copy of the
// runtime's stores and sandbox. `chat` and `--version`/`--help` stay outside: they load this only when they need it;
// `config`, `trust` and `memory` never do (cli/main.ts).
export { closeChatShell, createChatSession, firstRunChoices, saveFirstRunChoice } from "../runtime/chat-session.js";
export { runCommand } from "./commands/run.js";
export { threadsCommand, threadsShowCommand } from "./commands/threads.js";
export { threadsRmCommand } from "./commands/threads-rm.js";
export { threadsExportCommand } from "./commands/threads-export.js";
export { rewindCommand } from "./commands/rewind.js";
export { mcpListCommand } from "./commands/mcp.js";
export { dbMigrateCommand } from "./commands/db.js";
export { evalCommand } from "./commands/eval.js";
export { doctorCommand } from "./commands/doctor.js";
export { acpCommand } from "./commands/acp.js";
