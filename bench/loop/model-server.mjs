// A zero-latency OpenAI-compatible chat endpoint for the loop benchmarks (loopback only): the same answer shape for
// the bare langchain loop and for deerflow. A request carrying tools gets a bash tool call until the conversation
// holds STEPS - 1 tool results since its last user message, then a final answer of ANSWER_BYTES; a request without
// tools (a title, a summary) gets a short text. `steps` may be a function of the last user message's text. Streams like a provider (role chunk, content/tool-call chunks,
// finish chunk, usage, [DONE]). `onRequest` is called as each chat request (`POST …/chat/completions`) arrives; other routes get a 404, as from a hosted API (bench/task.mjs times a start to
// its first model request with it).
import http from "node:http";

// `answer(n, bytes)`, when given, writes the n-th final answer (the disk bench gives real text: "x" repeated deflates
// to nothing).
export function startModelServer({ steps = 20, answerBytes = 200, answer = (_n, bytes) => "x".repeat(bytes), onRequest = () => {} } = {}) {
  let answers = 0;
  let seq = 0;
  const server = http.createServer((req, res) => {
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "bench-model", object: "model" }] }));
      return;
    }
    // Only the chat route is the model: deerflow's context-window probe POSTs Ollama's /api/show first, and a server
    // that answered it as a chat request made the bench time the probe as the "first model request".
    if (!req.url?.endsWith("/chat/completions")) {
      req.resume();
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "not found", type: "invalid_request_error" } }));
      return;
    }
    onRequest();
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const messages = body.messages ?? [];
      let lastUser = -1;
      for (let i = 0; i < messages.length; i++) if (messages[i].role === "user") lastUser = i;
      const toolResults = messages.slice(lastUser + 1).filter((m) => m.role === "tool").length;
      const userText = typeof messages[lastUser]?.content === "string" ? messages[lastUser].content : JSON.stringify(messages[lastUser]?.content ?? "");
      const stepsNow = typeof steps === "function" ? steps(userText) : steps;
      const id = `chatcmpl-bench-${++seq}`;
      const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
      const reply =
        hasTools && toolResults < stepsNow - 1
          ? { tool: { id: `call_${seq}`, name: "bash", arguments: JSON.stringify({ command: `echo step ${toolResults + 1}`, description: "step" }) } }
          : { content: hasTools ? `done after ${toolResults} steps: ${answer(answers++, Math.max(0, answerBytes - 30))}` : "Bench title" };
      const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
      const base = { id, object: "chat.completion.chunk", created: 1, model: "bench-model" };
      if (!body.stream) {
        const message = reply.tool
          ? { role: "assistant", content: null, tool_calls: [{ id: reply.tool.id, type: "function", function: { name: reply.tool.name, arguments: reply.tool.arguments } }] }
          : { role: "assistant", content: reply.content };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: reply.tool ? "tool_calls" : "stop" }], usage }));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const send = (o) => res.write(`data: ${JSON.stringify({ ...base, ...o })}\n\n`);
      send({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
      if (reply.tool) {
        send({
          choices: [
            { index: 0, delta: { tool_calls: [{ index: 0, id: reply.tool.id, type: "function", function: { name: reply.tool.name, arguments: reply.tool.arguments } }] }, finish_reason: null },
          ],
        });
      } else {
        send({ choices: [{ index: 0, delta: { content: reply.content }, finish_reason: null }] });
      }
      send({ choices: [{ index: 0, delta: {}, finish_reason: reply.tool ? "tool_calls" : "stop" }] });
      send({ choices: [], usage });
      res.end("data: [DONE]\n\n");
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${server.address().port}/v1`, close: () => new Promise((r) => server.close(r)) })));
}
