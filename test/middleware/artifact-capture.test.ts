// ArtifactCapture: the seed's entry shape, the scan-once ledger (tool_artifact_processed), handles in the request
// only, resolution of handles in tool calls (unknown ones refused), consumed_by, and through a real createAgent graph
// with a fake model: the model sees the handle, the tool gets the path, the thread keeps the real output.
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import fc from "fast-check";
import { createAgent, fakeModel, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { artifactCaptureMiddleware, captureArtifacts, findLongRefs, resolveHandles, withHandles } from "../../src/middleware/artifact-capture.js";
import type { ArtifactEntry } from "../../src/state/types.js";
import { contentText } from "../../src/vocabulary/message-text.js";

const LONG_DIR = `/mnt/user-data/workspace/${"very-long-directory-name/".repeat(5)}`;
const PNG = `${LONG_DIR}chart.png`;
const URL = `https://storage.example.com/buckets/reports/${"segment/".repeat(12)}q3.pdf?sig=abc`;
const result = (content: string, id = "call-1", name = "glob") => new ToolMessage({ id: `tm-${id}`, content, tool_call_id: id, name });

describe("captureArtifacts", () => {
  it("gives long paths and URLs handles with the seed's entry shape; short ones stay", () => {
    const out = captureArtifacts([result(`${PNG}\n/mnt/user-data/workspace/short.txt\nsee ${URL}.`)], [], [], 120, () => "2026-11-30T00:00:00.000Z")!;
    expect(out.tool_artifacts).toHaveLength(2);
    const [url, png] = out.tool_artifacts;
    expect(png).toEqual({
      handle: expect.stringMatching(/^art_[0-9a-f]{8}$/),
      tool_name: "glob",
      tool_call_id: "call-1",
      call_index: 1,
      artifact_type: "image",
      display_name: "chart.png",
      real_ref: PNG,
      mime_type: "image/png",
      created_at: "2026-11-30T00:00:00.000Z",
    });
    expect(url).toMatchObject({ call_index: 0, artifact_type: "url", display_name: "q3.pdf", real_ref: URL, mime_type: "application/pdf" });
    expect(out.tool_artifact_processed).toEqual([expect.stringMatching(/^result:[0-9a-f]{12}$/)]);
  });

  it("scans a message once: the ledger decides, not the content (an O(1) skip)", () => {
    const first = captureArtifacts([result(PNG)], [], [], 120)!;
    // Same message id and call id with other content: not scanned again.
    expect(captureArtifacts([result(`${URL}`)], first.tool_artifacts, first.tool_artifact_processed, 120)).toBeUndefined();
    // A new result with the same reference: scanned, but the reference keeps its handle (no duplicate entry).
    const again = captureArtifacts([result(PNG), result(PNG, "call-2")], first.tool_artifacts, first.tool_artifact_processed, 120)!;
    expect(again.tool_artifacts).toEqual([]);
    expect(again.tool_artifact_processed).toHaveLength(1);
  });

  it("records which tool calls consumed a handle", () => {
    const { tool_artifacts: entries, tool_artifact_processed: done } = captureArtifacts([result(PNG)], [], [], 120)!;
    const h = entries[0]!.handle;
    const ai = new AIMessage({ id: "ai-2", content: "", tool_calls: [{ id: "call-9", name: "view_image", args: { image_path: h } }] });
    const out = captureArtifacts([result(PNG), ai], entries, done, 120)!;
    expect(out.tool_artifacts).toEqual([{ ...entries[0], consumed_by: ["call-9"] }]);
    expect(captureArtifacts([result(PNG), ai], [...out.tool_artifacts], [...done, ...out.tool_artifact_processed], 120)).toBeUndefined();
  });
});

describe("handles in the request and in tool calls", () => {
  const entries = captureArtifacts([result(`${PNG} ${URL}`)], [], [], 120)!.tool_artifacts;
  const byRef = (ref: string) => entries.find((e) => e.real_ref === ref)!.handle;

  it("the request shows handles with a note; the reminder lists handles whose messages are gone", () => {
    const { messages, shown } = withHandles([new HumanMessage("hi"), result(`found ${PNG}`)], entries);
    expect(contentText(messages[1]!.content)).toBe(
      `found ${byRef(PNG)}\\n[Long references above are shown as handles (${byRef(PNG)} = image chart.png); pass a handle as the argument where the reference is needed.]`.replace("\\n", "\n"),
    );
    expect([...shown]).toEqual([byRef(PNG)]);
  });

  it("resolves known handles (whole or inside a string), refuses an unknown whole-argument handle, leaves unknown text alone", () => {
    expect(resolveHandles({ path: byRef(PNG), cmd: `curl -o x ${byRef(URL)}` }, entries)).toEqual({ args: { path: PNG, cmd: `curl -o x ${URL}` }, unknown: [] });
    expect(resolveHandles({ path: "art_deadbeef" }, entries).unknown).toEqual(["art_deadbeef"]);
    expect(resolveHandles({ cmd: "grep art_deadbeef log" }, entries)).toEqual({ args: { cmd: "grep art_deadbeef log" }, unknown: [] });
  });

  it("in a bash command a reference is single-quoted, or escaped for the quotes the model put the handle in", () => {
    const url = "https://cdn.example.com/" + "x/".repeat(60) + "f?a=1&b=2;touch$IFS/tmp/x|c";
    const ents = captureArtifacts([result(url)], [], [], 100)!.tool_artifacts;
    const h = ents[0]!.handle;
    expect(resolveHandles({ command: `curl -o out ${h}` }, ents, "bash").args).toEqual({ command: `curl -o out '${url}'` });
    // Inside double quotes the shell would still expand `$IFS`: it is escaped.
    expect(resolveHandles({ command: `curl -o out "${h}"` }, ents, "bash").args).toEqual({ command: `curl -o out "${url.replace("$", "\\$")}"` });
    expect(resolveHandles({ command: `curl -o out '${h}'` }, ents, "bash").args).toEqual({ command: `curl -o out '${url}'` });
    expect(resolveHandles({ path: h }, ents, "read_file").args).toEqual({ path: url });
    // References never hold a quote (the path and URL shapes stop at one), so single quotes are always safe.
    expect(findLongRefs(`/mnt/user-data/workspace/${"it's-a-dir/".repeat(12)}f`, 20).map((r) => r.ref)).toEqual(["/mnt/user-data/workspace/it"]);
  });

  it("property: handles in, resolution out gives the original text back", () => {
    const seg = fc.stringMatching(/^[a-z0-9_-]{4,30}$/);
    fc.assert(
      fc.property(fc.array(fc.array(seg, { minLength: 6, maxLength: 10 }), { minLength: 1, maxLength: 4 }), fc.array(fc.stringMatching(/^[a-z ,.]{0,20}$/), { maxLength: 4 }), (paths, words) => {
        const refs = paths.map((p) => `/mnt/user-data/workspace/${p.join("/")}`);
        const text = refs.map((r, i) => `${words[i] ?? ""} ${r}`).join("\n");
        const cap = captureArtifacts([result(text)], [], [], 60);
        const ents: ArtifactEntry[] = cap?.tool_artifacts ?? [];
        const shown = contentText(withHandles([new HumanMessage(text)], ents).messages[0]!.content);
        for (const e of ents) expect(shown).not.toContain(e.real_ref);
        expect(resolveHandles({ t: shown }, ents).args).toEqual({ t: text });
      }),
      { numRuns: 200 },
    );
  });

  it("findLongRefs trims trailing punctuation and keeps a URL whole", () => {
    expect(findLongRefs(`see ${URL}. and ${PNG},`, 100).map((r) => r.ref)).toEqual([URL, PNG]);
  });
});

describe("ArtifactCapture in createAgent", () => {
  it("the model sees a handle, passes it, the tool gets the real path; an invented handle is refused; the thread keeps the real output", async () => {
    const seenByTool: string[] = [];
    const find = tool(async () => `${PNG}`, { name: "find", description: "find", schema: z.object({}) });
    const open = tool(async ({ path }: { path: string }) => (seenByTool.push(path), `opened ${path.length} chars`), { name: "open", description: "open", schema: z.object({ path: z.string() }) });
    const model = fakeModel();
    model.respond(new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "find", args: {} }] }));
    model.respond((messages: BaseMessage[]) => {
      const handle = /art_[0-9a-f]{8}/.exec(contentText(messages.at(-1)!.content))![0];
      return new AIMessage({
        id: "a2",
        content: "",
        tool_calls: [
          { id: "c2", name: "open", args: { path: handle } },
          { id: "c3", name: "open", args: { path: "art_00000000" } },
        ],
      });
    });
    model.respond(new AIMessage({ id: "a3", content: "done" }));
    const agent: any = createAgent({ model, tools: [find, open], middleware: [artifactCaptureMiddleware()], checkpointer: new MemorySaver() });
    const cfg = { configurable: { thread_id: "t" } };
    await agent.invoke({ messages: [new HumanMessage("go")] }, cfg);
    expect(seenByTool).toEqual([PNG]);
    const state = (await agent.getState(cfg)).values as { messages: BaseMessage[]; tool_artifacts: ArtifactEntry[]; tool_artifact_processed: string[] };
    const tools = state.messages.filter(ToolMessage.isInstance);
    expect(contentText(tools[0]!.content)).toBe(PNG); // stored unchanged
    expect(tools.find((t) => t.tool_call_id === "c3")).toMatchObject({ status: "error" });
    expect(contentText(tools.find((t) => t.tool_call_id === "c3")!.content)).toContain("art_00000000 is not an artifact handle of this thread");
    expect(state.tool_artifacts).toHaveLength(1);
    expect(state.tool_artifacts[0]!.consumed_by).toEqual(["c2"]); // c3 passed no handle of this thread
    // Nothing the model saw holds the long path.
    for (const call of model.calls.slice(1)) expect(JSON.stringify(call.messages)).not.toContain(PNG);
  });
});
