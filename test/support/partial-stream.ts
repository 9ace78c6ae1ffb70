// A model that starts an answer and then stalls: the text's words stream as OpenAI chunks, then the response stays
// open (nothing more comes). What a user interrupts mid-answer; in-process, CLI and PTY tests share it.
import type { RawReply } from "./openai-server.js";

export function partialAnswer(text: string): RawReply {
  const head = { id: "chatcmpl-partial", object: "chat.completion.chunk", created: 1, model: "test-model", system_fingerprint: null };
  const chunk = (delta: object) => `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: null }] })}\n\n`;
  const words = text.match(/\S*\s*/g)!.filter((w) => w.length > 0);
  return { raw: [chunk({ role: "assistant", content: "" }), ...words.map((w) => chunk({ content: w }))], end: "hang" };
}
