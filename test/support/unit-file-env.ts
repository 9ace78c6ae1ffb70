// Set-up of every file in the `unit` project, whose files share a worker (isolate: false): what one file leaves in
// process.env (a checkpoint mode, a PATH without bwrap, a deleted API key) or as the working directory would
// otherwise reach the files after it, and silently change what they test.
import { afterAll, beforeAll } from "vitest";

let env: NodeJS.ProcessEnv = {};
let cwd = "";

beforeAll(() => {
  env = { ...process.env };
  cwd = process.cwd();
});

afterAll(() => {
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  Object.assign(process.env, env);
  process.chdir(cwd);
});
