// A saved thread as `deerflow resume` shows it (ThreadView), read in-process from a CLI sandbox's home: the test's
// process env is pointed at the sandbox for the read and restored after it.
import { createChatSession } from "../../src/runtime/chat-session.js";
import type { ThreadView } from "../../src/runtime/thread-view.js";
import type { Sandbox } from "./cli.js";

export async function readThreadView(sb: Sandbox, threadId: string): Promise<ThreadView> {
  const saved = { ...process.env };
  Object.assign(process.env, sb.env);
  try {
    return await createChatSession({ home: sb.home, model: "test-model", cwd: sb.cwd }).resume({ threadId });
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}
