// `deerflow db migrate --from sqlite --to postgres://…`: 20 threads made by real runs in a home's SQLite file are
// copied to a team database and verified; a second migrate skips them all; one of them is then continued from the
// team database (by another home: the index and checkpoints came across) and the model receives its history.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, requireModel } from "../../src/config/load.js";
import { runThread } from "../../src/runtime/run-thread.js";
import { ThreadRuntime } from "../../src/runtime/thread-runtime.js";
import { useE2E } from "../support/e2e.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";

const e2e = useE2E();
const THREADS = 20;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  if (!pgSkip) db = await createTestDatabase();
});
afterAll(async () => db?.drop());

const userTexts = (body: { messages: { role: string; content: unknown }[] }) =>
  body.messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => `${m.role}:${typeof m.content === "string" ? m.content : "…"}`)
    .filter((t) => !t.includes("<system-reminder>"));

// 20 threads made and copied through the CLI (as many as fifty proved nothing more: no batching): generous on a loaded machine.
describe.skipIf(pgSkip)("db migrate", { timeout: 300_000 }, () => {
  it(`copies ${THREADS} threads, verified; a re-run skips them; one continues from the team database`, async () => {
    const sb = e2e.sandbox();
    const config = loadConfig({ env: { ...sb.env }, cwd: sb.cwd, userHome: sb.userHome });
    const model = requireModel(config);
    const ids: string[] = [];
    for (let i = 0; i < THREADS; i++) {
      e2e.server.push({ content: `answer ${i}` });
      ids.push((await runThread({ config, model, prompt: `question ${i}` })).thread_id);
    }
    await ThreadRuntime.closeAll();

    // Generous: the delta threads (the default mode) are read back checkpoint by checkpoint on a busy machine.
    const migrated = await sb.run(["db", "migrate", "--from", "sqlite", "--to", db.url, "--json"], { timeoutMs: 400_000 });
    expect(migrated.stderr).toBe("");
    const report = JSON.parse(migrated.stdout);
    expect(report.copied).toHaveLength(THREADS);
    expect(report.to).not.toContain("deerflow_test@");
    expect(report.to).toContain(":***@");
    const again = JSON.parse((await sb.run(["db", "migrate", "--from", "sqlite", "--to", db.url, "--json"], { timeoutMs: 400_000 })).stdout);
    expect(again).toMatchObject({ copied: [], checkpoints: 0 });
    expect(again.skipped).toHaveLength(THREADS);

    const listed = JSON.parse((await sb.run(["threads", "--json"], { env: { DEERFLOW_DATABASE_URL: db.url } })).stdout) as { id: string }[];
    expect(listed.map((t) => t.id).sort()).toEqual([...ids].sort());
    e2e.server.push({ content: "continued on the team database" });
    const next = await sb.run(["run", "--thread", ids[17]!, "and now?"], { env: { DEERFLOW_DATABASE_URL: db.url } });
    expect(next.exitCode).toBe(0);
    expect(next.stdout).toBe("continued on the team database\n");
    expect(userTexts(e2e.server.requests.at(-1)!.body as never)).toEqual(["user:question 17", "assistant:answer 17", "user:and now?"]);
  }, 1_200_000);
});
