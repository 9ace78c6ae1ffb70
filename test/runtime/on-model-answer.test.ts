// OnModelAnswer (the sandbox session's warm-up): runs its work once the model has begun to answer, never before the
// request, and once per run however many tokens, answers or model calls follow.
import { describe, expect, it } from "vitest";
import { OnModelAnswer } from "../../src/runtime/on-model-answer.js";

const turn = () => new Promise((r) => setImmediate(r));

describe("OnModelAnswer", () => {
  it("waits for the first token, runs the work on a later turn of the event loop, and only once", async () => {
    let runs = 0;
    const h = new OnModelAnswer(() => runs++);
    h.handleLLMStart?.({} as never, [], "run-1");
    await turn();
    expect(runs).toBe(0);
    h.handleLLMNewToken();
    expect(runs).toBe(0);
    await turn();
    expect(runs).toBe(1);
    h.handleLLMNewToken();
    h.handleLLMEnd();
    await turn();
    expect(runs).toBe(1);
  });

  it("a whole answer without tokens starts it too; a failed request (a run being stopped) does not", async () => {
    let ended = 0;
    new OnModelAnswer(() => ended++).handleLLMEnd();
    let failed = 0;
    new OnModelAnswer(() => failed++).handleLLMError?.(new Error("aborted"), "run-1");
    await turn();
    expect([ended, failed]).toEqual([1, 0]);
  });
});
