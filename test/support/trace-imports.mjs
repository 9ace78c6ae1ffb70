// Loaded with `node --import`: records every module URL the process resolves into $DEERFLOW_TRACE_IMPORTS,
// so a test can prove the fast paths (--version, --help) never load LangChain or Ink.
import { register } from "node:module";
register("./trace-imports-hooks.mjs", import.meta.url, { data: { file: process.env.DEERFLOW_TRACE_IMPORTS } });
