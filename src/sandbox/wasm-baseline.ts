// WebAssembly stays on V8's baseline compiler (Liftoff), set when this module loads. The bash grammar the audit parses
// with is WebAssembly (shell-grammar.ts), and V8's optimizing tier recompiled its huge lexer function when the run's
// first command was parsed: about a second of both cores on a 2-core machine, which that command waited for (1.0-1.5 s
// from the model's reply to the next request, 0.4 s without). On the baseline code a command line still parses in well
// under a millisecond. A flag set halfway through a run would also void the code cache (V8 refuses a cache written
// under other flags): load-runtime.ts loads this before any bundle is compiled.
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--liftoff-only");
