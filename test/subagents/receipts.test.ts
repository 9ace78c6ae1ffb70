// A receipt is a tool call the subagent made and that answered: a refused or failed call is no evidence (the
// thirteenth pass cited a Blocked `rm -rf ~` and an errored read_file and got "passed").
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { checkReceipts, madeToolCalls } from "../../src/subagents/receipts.js";

describe("receipts", () => {
  it("count only calls whose result is not an error", () => {
    const messages = [
      new AIMessage({
        content: "",
        tool_calls: [
          { id: "ok1", name: "bash", args: { command: "npm test" } },
          { id: "blocked1", name: "bash", args: { command: "rm -rf ~" } },
          { id: "err1", name: "read_file", args: { path: "nope" } },
        ],
      }),
      new ToolMessage({ tool_call_id: "ok1", content: "12 passed" }),
      new ToolMessage({ tool_call_id: "blocked1", content: "Blocked: recursive delete …", status: "error" }),
      new ToolMessage({ tool_call_id: "err1", content: "Error: no such file", status: "error" }),
    ];
    const made = madeToolCalls(messages);
    expect([...made]).toEqual(["ok1"]);
    expect(checkReceipts("Tests pass [receipt: ok1], cleaned [receipt: blocked1] [receipt: err1] [receipt: never]", made)).toEqual({
      cited: ["ok1", "blocked1", "err1", "never"],
      missing: ["blocked1", "err1", "never"],
    });
  });
});
