import { AIMessage, AIMessageChunk, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES, messagesDeltaReducer, messagesStateReducer } from "@langchain/langgraph";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MessageRemovalError, mergeMessageWrites, mergeMessages, type MessagesUpdate } from "../../src/state/index.js";

const summary = (messages: BaseMessage[]) => messages.map((m) => [m.getType(), m.id, m.content]);

describe("messages reducer (add-messages semantics)", () => {
  it("appends new messages and gives id-less ones an id", () => {
    const out = mergeMessages([new HumanMessage({ id: "h1", content: "hi" })], [new AIMessage("hello")]);
    expect(out.map((m) => m.content)).toEqual(["hi", "hello"]);
    expect(out[1]!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("assigns ids deterministically: the same writes give the same ids", () => {
    const run = () => mergeMessages(mergeMessages([], [new HumanMessage("a")]), [new AIMessage("b"), new AIMessage("b")]);
    const a = run();
    const b = run();
    expect(a.map((m) => m.id)).toEqual(b.map((m) => m.id));
    expect(new Set(a.map((m) => m.id)).size).toBe(3); // identical content still gets distinct ids
  });

  it("same id replaces in place", () => {
    const state = [new HumanMessage({ id: "1", content: "a" }), new AIMessage({ id: "2", content: "b" })];
    const out = mergeMessages(state, [new AIMessage({ id: "2", content: "B" }), new HumanMessage({ id: "1", content: "A" })]);
    expect(summary(out)).toEqual([
      ["human", "1", "A"],
      ["ai", "2", "B"],
    ]);
  });

  it("RemoveMessage(id) deletes that message", () => {
    const state = [new HumanMessage({ id: "1", content: "a" }), new AIMessage({ id: "2", content: "b" })];
    const out = mergeMessages(state, [new RemoveMessage({ id: "1" })]);
    expect(summary(out)).toEqual([["ai", "2", "b"]]);
  });

  it("removing an unknown id throws a MessageRemovalError naming the id (no silent no-op)", () => {
    const state = [new HumanMessage({ id: "1", content: "a" })];
    let error: unknown;
    try {
      mergeMessages(state, [new RemoveMessage({ id: "ghost" })]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MessageRemovalError);
    expect((error as MessageRemovalError).messageId).toBe("ghost");
    expect((error as Error).message).toContain('"ghost"');
  });

  it("LangGraph's own reducers: messagesStateReducer throws on an unknown id, messagesDeltaReducer does not", () => {
    // Why delta mode cannot use messagesDeltaReducer as is.
    const state = [new HumanMessage({ id: "1", content: "a" })];
    expect(() => messagesStateReducer(state, [new RemoveMessage({ id: "ghost" })])).toThrow(/doesn't exist/);
    expect(() => messagesDeltaReducer(state, [[new RemoveMessage({ id: "ghost" })]])).not.toThrow();
  });

  it("a message added earlier in the same write can be removed by that write", () => {
    const out = mergeMessages([], [new HumanMessage({ id: "x", content: "a" }), new RemoveMessage({ id: "x" })]);
    expect(out).toEqual([]);
  });

  it("REMOVE_ALL_MESSAGES clears, then the rest of the write rebuilds the list", () => {
    const state = [new HumanMessage({ id: "1", content: "a" }), new AIMessage({ id: "2", content: "b" })];
    const out = mergeMessages(state, [
      new AIMessage({ id: "old", content: "dropped too" }),
      new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
      new HumanMessage({ id: "s", content: "summary" }),
      new AIMessage({ id: "t", content: "tail" }),
      new AIMessage({ id: "t", content: "tail v2" }),
    ]);
    expect(summary(out)).toEqual([
      ["human", "s", "summary"],
      ["ai", "t", "tail v2"],
    ]);
  });

  it("after REMOVE_ALL_MESSAGES, removing an id of the old list fails", () => {
    const state = [new HumanMessage({ id: "1", content: "a" })];
    expect(() => mergeMessages(state, [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new RemoveMessage({ id: "1" })])).toThrow(MessageRemovalError);
  });

  it("coerces message-likes and chunks into messages", () => {
    const out = mergeMessages([], [{ role: "user", content: "plain object" }, new AIMessageChunk({ id: "c", content: "chunk" })] as MessagesUpdate);
    expect(out.map((m) => m.getType())).toEqual(["human", "ai"]);
    expect(AIMessageChunk.isInstance(out[1])).toBe(false);
    expect(out[0]!.id).toBeTruthy();
  });

  it("a single message (not in an array) is a valid write", () => {
    expect(mergeMessages([], new HumanMessage({ id: "1", content: "a" })).map((m) => m.id)).toEqual(["1"]);
  });

  it("null/undefined is no write", () => {
    const state = [new HumanMessage({ id: "1", content: "a" })];
    expect(summary(mergeMessages(state, null))).toEqual(summary(state));
    expect(summary(mergeMessages(state, undefined))).toEqual(summary(state));
  });

  it("keeps tool messages after their AI tool call", () => {
    const ai = new AIMessage({ id: "a", content: "", tool_calls: [{ id: "c1", name: "ls", args: {} }] });
    const tool = new ToolMessage({ id: "t", tool_call_id: "c1", content: "ok" });
    expect(mergeMessages([ai], [tool]).map((m) => m.id)).toEqual(["a", "t"]);
  });
});

describe("messages delta batch reducer", () => {
  it("folds writes exactly like applying mergeMessages one write at a time", () => {
    const writes: MessagesUpdate[] = [
      [new HumanMessage({ id: "1", content: "a" })],
      new AIMessage({ id: "2", content: "b" }),
      [new RemoveMessage({ id: "1" }), new AIMessage({ id: "3", content: "c" })],
    ];
    const folded = writes.reduce<BaseMessage[]>((s, w) => mergeMessages(s, w), []);
    expect(summary(mergeMessageWrites([], writes))).toEqual(summary(folded));
  });

  it("fails on an unknown-id removal (unlike LangGraph's messagesDeltaReducer)", () => {
    expect(() => mergeMessageWrites([], [[new RemoveMessage({ id: "ghost" })]])).toThrow(MessageRemovalError);
  });

  it("an empty batch returns the state", () => {
    const state = [new HumanMessage({ id: "1", content: "a" })];
    expect(mergeMessageWrites(state, [])).toBe(state);
  });

  // Writes are built fresh for every run: the reducer stamps ids on the objects it is given.
  type Op = { kind: "add"; id: string | null; text: string } | { kind: "remove"; target: number } | { kind: "clear" };
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant("add" as const), id: fc.option(fc.constantFrom("a", "b", "c", "d", "e")), text: fc.constantFrom("x", "y", "z") }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("remove" as const), target: fc.nat(10) }) },
    { weight: 1, arbitrary: fc.constant({ kind: "clear" as const }) },
  );

  /** Turn ops into writes that are valid against the state they will meet (removals target existing ids). */
  function buildWrites(ops: Op[][]): () => MessagesUpdate[] {
    // Simulate once to pick removal targets that exist.
    let state: BaseMessage[] = [];
    const plan: Array<Array<{ kind: "add"; id: string | null; text: string } | { kind: "remove"; id: string } | { kind: "clear" }>> = [];
    for (const batch of ops) {
      const steps: (typeof plan)[number] = [];
      const write: BaseMessage[] = [];
      for (const op of batch) {
        if (op.kind === "add") {
          steps.push(op);
          write.push(op.id === null ? new HumanMessage(op.text) : new HumanMessage({ id: op.id, content: op.text }));
        } else if (op.kind === "clear") {
          steps.push(op);
          write.push(new RemoveMessage({ id: REMOVE_ALL_MESSAGES }));
        } else {
          const candidate = mergeMessages(state.map(cloneMessage), write.map(cloneMessage));
          if (candidate.length === 0) continue;
          const id = candidate[op.target % candidate.length]!.id!;
          steps.push({ kind: "remove", id });
          write.push(new RemoveMessage({ id }));
        }
      }
      state = mergeMessages(state, write.map(cloneMessage));
      plan.push(steps);
    }
    return () =>
      plan.map((steps) =>
        steps.map((s) =>
          s.kind === "add" ? (s.id === null ? new HumanMessage(s.text) : new HumanMessage({ id: s.id, content: s.text })) : new RemoveMessage({ id: s.kind === "clear" ? REMOVE_ALL_MESSAGES : s.id }),
        ),
      );
  }
  function cloneMessage(m: BaseMessage): BaseMessage {
    return RemoveMessage.isInstance(m) ? new RemoveMessage({ id: m.id! }) : new HumanMessage({ id: m.id, content: m.content as string });
  }

  it("property: batching-invariant, f(f(s, xs), ys) = f(s, xs ++ ys), ids included", () => {
    fc.assert(
      fc.property(fc.array(fc.array(opArb, { maxLength: 4 }), { maxLength: 8 }), fc.nat(8), (ops, cut) => {
        const fresh = buildWrites(ops);
        const whole = mergeMessageWrites([], fresh());
        const parts = fresh();
        const k = Math.min(cut, parts.length);
        const split = mergeMessageWrites(mergeMessageWrites([], parts.slice(0, k)), parts.slice(k));
        expect(summary(split)).toEqual(summary(whole));
      }),
    );
  });

  it("property: no two messages in state share an id", () => {
    fc.assert(
      fc.property(fc.array(fc.array(opArb, { maxLength: 4 }), { maxLength: 8 }), (ops) => {
        const out = mergeMessageWrites([], buildWrites(ops)());
        expect(new Set(out.map((m) => m.id)).size).toBe(out.length);
      }),
    );
  });
});

describe("messages reducer: re-writing the current list is a no-op", () => {
  it("f(x, x) has the same messages in the same order", () => {
    const x = mergeMessages([], [new HumanMessage("a"), new AIMessage({ id: "2", content: "b" }), new HumanMessage("c")]);
    expect(summary(mergeMessages(x, x))).toEqual(summary(x));
  });
});
