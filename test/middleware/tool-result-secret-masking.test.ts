// Tool results are masked for secrets before the model sees them, whatever path reached the secret (the fifth
// adversarial pass): a symlink the repository ships into ~/.ssh, read with read_file's sibling `cat`, and the API key
// deerflow was started with, read from its own environment. Through a ChatSession against the loopback model.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolMessage } from "@langchain/core/messages";
import { beforeEach, describe, expect, it } from "vitest";
import { toolResultSecretMaskingMiddleware } from "../../src/middleware/tool-result-secret-masking.js";
import { createChatSession } from "../../src/runtime/chat-session.js";
import { maskSecretShapes } from "../../src/vocabulary/secret-shapes.js";
import { useInProcessModel } from "../support/in-process.js";
import type { TestModelServer } from "../support/openai-server.js";

const env = useInProcessModel("deerflow-mask-");
let server: TestModelServer;
let home: string;
let cwd: string;
beforeEach(() => ({ server, home, cwd } = env()));

const PEM = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDa\n-----END OPENSSH PRIVATE KEY-----";
const toolText = (body: any, id: string): string => String(body.messages.find((m: any) => m.role === "tool" && m.tool_call_id === id)?.content ?? "");

describe("ToolResultSecretMasking", () => {
  it("a key reached through a symlink the repository ships, and the API key in a dump, never reach the model", async () => {
    const ssh = join(cwd, "..", ".ssh");
    mkdirSync(ssh, { recursive: true });
    writeFileSync(join(ssh, "id_ed25519"), `${PEM}\n`);
    symlinkSync(join(ssh, "id_ed25519"), join(cwd, "docs-key"));
    writeFileSync(join(cwd, "dump.txt"), `config: api_key=${process.env.OPENAI_API_KEY} region=eu\n`);
    server.push({ toolCalls: [{ id: "k", name: "bash", args: { command: "cat docs-key; echo; cat dump.txt" } }] }, { content: "done" });
    const s = createChatSession({ home, model: "test-model", cwd, workspace: cwd, approval: "yolo", allowUnconfined: true });
    await s.send({ prompt: "show me" }, () => {}, new AbortController().signal);
    const seen = toolText(server.requests[1]!.body, "k");
    expect(seen).toContain("config: api_key=*** region=eu");
    expect(seen).not.toContain("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE");
    expect(seen).not.toContain("sk-test-key-123456");
  }, 120_000);

  it("masks whole private-key blocks (cut off too), key shapes and the given values; leaves other text as it was", async () => {
    expect(maskSecretShapes(`a\n${PEM}\nb`)).toBe("a\n***\nb");
    expect(maskSecretShapes(`a\n${PEM.slice(0, 80)}`)).toBe("a\n***");
    const mw = toolResultSecretMaskingMiddleware(["hunter2-long-password"]);
    const run = (content: string) =>
      (mw as any).wrapToolCall({ toolCall: { id: "t", name: "x", args: {} } }, async () => new ToolMessage({ tool_call_id: "t", name: "x", content, status: "success" }));
    expect((await run("pw=hunter2-long-password ok")).content).toBe("pw=*** ok");
    const plain = await run("nothing secret here");
    expect(plain.content).toBe("nothing secret here");
    expect(plain.status).toBe("success");
  });

  it("masks a key inside markdown emphasis or glued to a name by `_`, not an identifier that only looks like a prefix (the seventeenth pass's L5)", () => {
    const ghp = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    expect(maskSecretShapes(`deploy _${ghp}_ now`)).toBe("deploy _***_ now");
    expect(maskSecretShapes(`__${ghp}__`)).toBe("__***__");
    expect(maskSecretShapes("x_sk-abcdefghijklmnop1234")).toBe("x_***");
    expect(maskSecretShapes("id AKIAABCDEFGHIJKLMNOP_")).toBe("id ***_");
    expect(maskSecretShapes("my_sk_live_abcdefghijklmnop12")).toBe("my_***");
    expect(maskSecretShapes("_glpat-abcdefghijklmnopqrst_")).not.toContain("glpat-");
    for (const word of ["user_pk_column_name_here", "risk-assessment-document", "ask-the-user-about-this", "xAKIAABCDEFGHIJKLMNOP"]) expect(maskSecretShapes(word)).toBe(word);
  });

  it("masks the token formats of registries and services by their documented prefixes, and JSON Web Tokens (the twentieth pass's LQ3)", () => {
    const hex = (n: number) => "0123456789abcdef".repeat(8).slice(0, n);
    const tokens = [
      `npm_${"A1b2C3d4E5".repeat(3)}abcdef`,
      `hf_${"AbCdEfGhIj".repeat(3)}kl`,
      `pypi-AgEIcHlwaS5vcmc${"CJDc2OWFm".repeat(5)}`,
      `dop_v1_${hex(64)}`,
      `shpat_${hex(32)}`,
      `hvs.${"CAESIJx8d".repeat(3)}`,
      `dapi${hex(32)}`,
      `SG.${"a".repeat(22)}.${"B".repeat(43)}`,
      `ya29.${"a0AfB_byC".repeat(3)}`,
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ];
    for (const t of tokens) expect(maskSecretShapes(`token: ${t} end`), t).toBe("token: *** end");
    for (const word of ["npm_modules_path", "hf_hub_download", "eyJ.not.a.token", "dapi_client", "SG.small.value"]) expect(maskSecretShapes(word), word).toBe(word);
  });

  it("masks an Authorization header's value whatever its scheme, and a Basic credential that decodes to user:password (the twenty-fourth pass's A24-9)", () => {
    // actions/checkout writes this into .git/config: `cat .git/config` or `@.git/config` carried it out whole.
    const checkout = `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${Buffer.from("x-access-token:ghs_abc").toString("base64")}`;
    expect(maskSecretShapes(checkout)).toBe('[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ***');
    expect(maskSecretShapes("Authorization: token 1234567890abcdef")).toBe("Authorization: token ***");
    expect(maskSecretShapes("-H 'Proxy-Authorization: Digest abcd1234efgh'")).toBe("-H 'Proxy-Authorization: Digest ***'");
    expect(maskSecretShapes(`Basic ${Buffer.from("ci:hunter22").toString("base64")} then`)).toBe("Basic *** then");
    // The twenty-fifth pass's A25-8: quotes, Digest/AWS4 parameters, token headers by name, curl -u.
    expect(maskSecretShapes('authorization="token ghx_abcdef1234567890"')).toBe('authorization="token ***"');
    expect(maskSecretShapes('Authorization: Bearer "abcDEF12345678xyz"')).toBe('Authorization: Bearer "***"');
    expect(maskSecretShapes('Authorization: Digest username="u", response="6629fae49393a05397450978507c4ef1"')).toContain('response="***"');
    expect(maskSecretShapes("Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7")).toMatch(
      /Signature=\*\*\*$/,
    );
    for (const h of ["PRIVATE-TOKEN: glpxABCDEF123456", "X-Api-Key: 9f8e7d6c5b4a3210", "Cookie: session=abcdef0123456789"]) expect(maskSecretShapes(h), h).toMatch(/: \*\*\*$/);
    expect(maskSecretShapes("curl -u deploy:hunter2pass https://h")).toBe("curl -u deploy:*** https://h");
    // Prose stays as written.
    for (const t of [
      "response = requests.get(url)",
      "response=requests.get(url)",
      'headers = {"Cookie": cookie_value}',
      "docker run -u 1000:1000 img",
      "Basic configuration of the server",
      "Authorization: required for all endpoints",
      "Basic dGhpc2lzcGxhaW4= (no colon)",
    ])
      expect(maskSecretShapes(t), t).toBe(t);
  });
});
