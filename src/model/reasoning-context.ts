// The reasoning of each assistant message of the request being sent, in order. WHY a context: LangChain's
// converter drops `reasoning_content` from assistant messages, but DeepSeek's thinking mode rejects a tool-call
// turn without it; the model wrapper knows the messages, the fetch builds the wire body — this carries one to the other
// without sharing state between concurrent calls (subagents use the same model object).
import { AsyncLocalStorage } from "node:async_hooks";

const store = new AsyncLocalStorage<(string | undefined)[]>();

export function withReasoning<T>(reasoning: (string | undefined)[], fn: () => Promise<T>): Promise<T> {
  return store.run(reasoning, fn);
}

export function currentReasoning(): (string | undefined)[] | undefined {
  return store.getStore();
}
