// ChunkNormalizer on its own: what each provider difference on the wire becomes in the canonical OpenAI shape
// (the provider fixtures in test/providers prove the same through ChatOpenAI; these name each rule directly).
import { describe, expect, it } from "vitest";
import { ChunkNormalizer } from "../../src/model/chunk-normalizer.js";

type Json = Record<string, any>;
const delta = (d: Json, extra: Json = {}): Json => ({ id: "chatcmpl-7", choices: [{ index: 0, delta: d, finish_reason: null, ...extra }] });
const calls = (n: ChunkNormalizer, ...fragments: Json[]): Json[] => fragments.map((tc) => n.chunk(delta({ tool_calls: [tc] })).choices[0].delta.tool_calls[0]);

describe("ChunkNormalizer.chunk", () => {
  it("gives every chunk our id and the assistant role, and records choices and a finish", () => {
    const n = new ChunkNormalizer("msg_ours");
    const first = n.chunk(delta({ content: "Hel" }));
    expect(first.id).toBe("msg_ours");
    expect(first.choices[0].delta.role).toBe("assistant");
    expect([n.sawChoice, n.sawFinish]).toEqual([true, false]);
    n.chunk(delta({}, { finish_reason: "stop" }));
    expect(n.sawFinish).toBe(true);
  });

  it("reads Fireworks' empty finish_reason as no finish, and a chunk without choices as none", () => {
    const n = new ChunkNormalizer("m");
    expect(n.chunk(delta({ content: "x" }, { finish_reason: "" })).choices[0].finish_reason).toBeNull();
    expect(n.sawFinish).toBe(false);
    const usageOnly = new ChunkNormalizer("m");
    expect(usageOnly.chunk({ usage: { prompt_tokens: 1 } }).choices).toEqual([]);
    expect(usageOnly.sawChoice).toBe(false);
  });

  it("moves Groq's usage to the top level and renames `reasoning` to `reasoning_content`", () => {
    const n = new ChunkNormalizer("m");
    expect(n.chunk({ choices: [], x_groq: { usage: { prompt_tokens: 3, completion_tokens: 4 } } }).usage).toEqual({ prompt_tokens: 3, completion_tokens: 4 });
    const d = n.chunk(delta({ reasoning: "think" })).choices[0].delta;
    expect(d.reasoning_content).toBe("think");
    expect(d).not.toHaveProperty("reasoning");
  });

  it("flattens content blocks to text, thinking blocks to reasoning", () => {
    const n = new ChunkNormalizer("m");
    const d = n.chunk(delta({ content: [{ type: "thinking", thinking: [{ type: "text", text: "hmm " }] }, { type: "text", text: "Hi" }, " there"] })).choices[0].delta;
    expect(d.content).toBe("Hi there");
    expect(d.reasoning_content).toBe("hmm ");
  });

  it("gives indexless tool-call fragments dense indexes, and id and name only on a call's first fragment", () => {
    const n = new ChunkNormalizer("m");
    const out = calls(
      n,
      { id: "c1", function: { name: "read", arguments: '{"pa' } },
      { id: "c1", function: { name: "read", arguments: 'th":1}' } },
      { function: { arguments: "" } },
      { id: "c2", function: { name: "ls", arguments: "{}" } },
    );
    expect(out).toEqual([
      { index: 0, id: "c1", type: "function", function: { name: "read", arguments: '{"pa' } },
      { index: 0, function: { arguments: 'th":1}' } },
      { index: 0, function: { arguments: "" } },
      { index: 1, id: "c2", type: "function", function: { name: "ls", arguments: "{}" } },
    ]);
  });

  it("starts a new call for a new id at a reused index, and keeps a duplicate id's second header apart", () => {
    const n = new ChunkNormalizer("m");
    const [a, b] = calls(n, { index: 0, id: "c1", function: { name: "read", arguments: "{}" } }, { index: 0, id: "c2", function: { name: "ls", arguments: "{}" } });
    expect([a!.index, b!.index]).toEqual([0, 1]);
    const dup = new ChunkNormalizer("m");
    const [x, y] = calls(dup, { index: 0, id: "same", function: { name: "read", arguments: "{}" } }, { index: 1, id: "same", function: { name: "write", arguments: "{}" } });
    expect([x!.index, y!.index]).toEqual([0, 1]);
    expect(y).toMatchObject({ id: "same", function: { name: "write" } });
  });

  it("joins a name split across fragments and sends it whole; a repeated whole name changes nothing", () => {
    const n = new ChunkNormalizer("m");
    const out = calls(
      n,
      { index: 0, id: "c1", function: { name: "read_", arguments: "" } },
      { index: 0, function: { name: "file", arguments: "{}" } },
      { index: 0, function: { name: "read_file", arguments: "" } },
    );
    expect(out[1]).toEqual({ index: 0, function: { name: "read_file", arguments: "{}" } });
    expect(out[2]).toEqual({ index: 0, function: { arguments: "" } });
  });

  it("sends arguments given as an object as the JSON string the SDK parses", () => {
    const n = new ChunkNormalizer("m");
    expect(calls(n, { index: 0, id: "c1", function: { name: "ls", arguments: { path: "." } } })[0]!.function.arguments).toBe('{"path":"."}');
  });
});

describe("ChunkNormalizer.response", () => {
  it("normalises a whole answer: id, role, reasoning, content blocks, tool calls with string arguments", () => {
    const n = new ChunkNormalizer("msg_ours");
    const out = n.response({
      id: "chatcmpl-1",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: { content: [{ type: "text", text: "ok" }], reasoning: "why", tool_calls: [{ id: "c1", function: { name: "ls", arguments: { path: "." } } }] },
        },
      ],
    });
    expect(out.id).toBe("msg_ours");
    expect(out.choices[0].message).toEqual({
      role: "assistant",
      content: "ok",
      reasoning_content: "why",
      tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }],
    });
    expect([n.sawChoice, n.sawFinish]).toEqual([true, true]);
  });
});
