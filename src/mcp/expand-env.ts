// `$VAR` and `${VAR}` inside an MCP server's strings (env values, headers, args, url) read the environment, as
// Claude Code and Gemini CLI do. A variable that is not set fails that server with a message naming the key,
// never the whole configuration: the chat goes on without it.

export class MissingEnvError extends Error {
  constructor(
    readonly variable: string,
    readonly keyPath: string,
  ) {
    super(`${keyPath} reads the environment variable ${variable}, which is not set (export it, or change ${keyPath})`);
    this.name = "MissingEnvError";
  }
}

const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

export function expandEnv(value: string, env: NodeJS.ProcessEnv, keyPath: string): string {
  return value.replace(REF, (_m, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    const got = env[name];
    if (got === undefined || got === "") throw new MissingEnvError(name, keyPath);
    return got;
  });
}

export function expandRecord(rec: Record<string, string> | undefined, env: NodeJS.ProcessEnv, keyPath: string): Record<string, string> | undefined {
  if (!rec) return undefined;
  return Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, expandEnv(v, env, `${keyPath}.${k}`)]));
}
