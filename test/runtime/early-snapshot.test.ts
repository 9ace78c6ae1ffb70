// The workspace's snapshot from before a run is taken while the run's first model call is under way, not before it
// (runtime/early-snapshot.ts): real git, held by a wrapper on PATH until the model request has arrived. Taken first,
// as it used to be, the request never arrives and the run waits on git until the test times out. The file the first
// tool writes is still outside the snapshot: rewinding the run removes it.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createChatSession } from "../../src/runtime/chat-session.js";
import type { TestModelServer } from "../support/openai-server.js";
import { useInProcessModel } from "../support/in-process.js";

let release = "";
const env = useInProcessModel("deerflow-early-snapshot-", async () => {
  // A run a failed test left waiting on git finishes before its files go.
  if (release) writeFileSync(release, "");
});
let server: TestModelServer;
let home: string;
let cwd: string;
let root: string;
let savedPath: string | undefined;

beforeEach(() => {
  ({ server, home, cwd, root } = env());
  const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const bin = join(root, "held-bin");
  mkdirSync(bin);
  release = join(root, "release-git");
  // Every git call waits for the release file (bounded: a minute), then runs the real git; each call is logged.
  writeFileSync(
    join(bin, "git"),
    `#!/bin/sh\nn=0\nwhile [ ! -e '${release}' ] && [ $n -lt 3000 ]; do sleep 0.02; n=$((n+1)); done\necho "$1 $2 $3" >> '${join(root, "git.log")}'\nexec '${realGit}' "$@"\n`,
  );
  chmodSync(join(bin, "git"), 0o755);
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}:${process.env.PATH}`;
});
afterEach(() => {
  process.env.PATH = savedPath;
  release = "";
});

describe("the snapshot before a run", () => {
  it("is taken while the first model request is under way; the first tool still waits for it", async () => {
    let gitCallsAtRequest: string | undefined;
    server.setScript((_req, i) => {
      if (i > 0) return { content: "Wrote it." };
      gitCallsAtRequest = existsSync(join(root, "git.log")) ? readFileSync(join(root, "git.log"), "utf8") : "";
      writeFileSync(release, "");
      return { toolCalls: [{ id: "w1", name: "write_file", args: { path: "made.txt", content: "made\n", description: "write" } }] };
    });
    const s = createChatSession({ home, model: "test-model", cwd, workspace: cwd, approval: "auto-edit" });
    const events: string[] = [];
    await s.send({ prompt: "write made.txt" }, (e) => events.push(e.type), new AbortController().signal);
    // No git call had finished (none had even begun) when the request arrived.
    expect(gitCallsAtRequest).toBe("");
    expect(readFileSync(join(cwd, "made.txt"), "utf8")).toBe("made\n");
    expect(events).not.toContain("snapshot.warning");

    const { outcome } = await s.rewind(1, "files");
    expect(JSON.stringify(outcome)).toContain("made.txt");
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
  }, 120_000);
});
