// `/export [file]` with a real ChatSession (loopback model, real SQLite): nothing to export before the first prompt;
// the default file in the chat's folder, Markdown; `.json` gives JSON; an existing file, or a symbolic link planted at
// the name, is refused and left as it was (the controller shows the refusal as one line).
import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createChatSession } from "../../../src/runtime/chat-session.js";
import { exportCommand } from "../../../src/tui/commands/export-command.js";
import { ThreadRuntime } from "../../../src/runtime/thread-runtime.js";
import { formatErrorLine } from "../../../src/errors.js";
import { useInProcessModel } from "../../support/in-process.js";
import type { TestModelServer } from "../../support/openai-server.js";
import { slashContext } from "./slash-context.js";

const env = useInProcessModel("deerflow-export-command-", () => ThreadRuntime.closeAll());
let server: TestModelServer;
let home: string;
let cwd: string;
beforeEach(() => ({ server, home, cwd } = env()));

describe("/export", () => {
  it("writes the thread to a new file (Markdown by default, JSON for .json) and never over an existing one or a link", async () => {
    const session = createChatSession({ home, model: "test-model", cwd });
    const none = slashContext("", { session });
    exportCommand.run(none.ctx);
    expect(none.notices).toEqual([["info", "Nothing to export yet: this chat has no thread until its first prompt."]]);

    server.push({ content: "The answer." });
    await session.send({ prompt: "a question" }, () => {}, new AbortController().signal);
    const id = session.threadId!;
    const md = slashContext("", { session });
    exportCommand.run(md.ctx);
    await Promise.all(md.tasks);
    const file = join(cwd, `deerflow-${id}.md`);
    expect(md.notices).toEqual([["info", `Exported this thread (Markdown) to ${file}.`]]);
    expect(readFileSync(file, "utf8")).toMatch(/### You\n\na question\n\n### deerflow\n\nThe answer\./);

    const again = slashContext("", { session });
    exportCommand.run(again.ctx);
    const refused = await Promise.all(again.tasks).catch((e: unknown) => e);
    expect(formatErrorLine(refused)).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} already exists: the export was not written\\. Name another file: /export <file>\\.`));

    const json = slashContext("out.json", { session });
    exportCommand.run(json.ctx);
    await Promise.all(json.tasks);
    expect(JSON.parse(readFileSync(join(cwd, "out.json"), "utf8"))).toMatchObject({ version: 1, thread: { id } });

    const target = join(cwd, "keep.txt");
    writeFileSync(target, "mine");
    symlinkSync(target, join(cwd, "link.md"));
    const linked = slashContext("link.md", { session });
    exportCommand.run(linked.ctx);
    expect(formatErrorLine(await Promise.all(linked.tasks).catch((e: unknown) => e))).toMatch(/link\.md already exists/);
    expect(readFileSync(target, "utf8")).toBe("mine");
    expect(existsSync(join(cwd, "deerflow-undefined.md"))).toBe(false);
  });
});
