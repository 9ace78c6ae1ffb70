// Tool-layer overhead: the bash, read_file and write_file tools (invoked the way the agent's ToolNode calls them)
// against the bare operation they wrap, measured in the same run. Baseline and tool calls alternate in small
// batches so machine drift hits both equally; each row is the median of the per-call times.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { execa } from "execa";
import { createBashTool, scrubEnv } from "../dist/tools/bash.js";
import { closeShellSessions, findBwrap } from "../dist/sandbox/run-shell.js";
import { createReadFileTool } from "../dist/tools/read-file.js";
import { createWriteFileTool } from "../dist/tools/write-file.js";

const ITERS = process.env.BENCH_TOOL_ITERS ? Number(process.env.BENCH_TOOL_ITERS) : undefined;
const BASH_ITERS = ITERS ?? 40;
const FILE_ITERS = ITERS ?? 300;
const WARMUP = 5;
const BATCHES = 10;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * Time `iters` calls of every variant (`variants`: name → async (i) => void), alternating batches of
 * `iters / BATCHES` calls per variant. Returns name → median ms per call.
 */
async function interleaved(variants, iters) {
  const names = Object.keys(variants);
  for (const name of names) for (let i = 0; i < WARMUP; i++) await variants[name](-1 - i);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  const per = Math.max(1, Math.ceil(iters / BATCHES));
  let done = 0;
  for (let b = 0; done < iters; b++) {
    const n = Math.min(per, iters - done);
    // Rotate which variant goes first so none always runs right after a GC-heavy neighbour.
    const order = names.map((_, k) => names[(k + b) % names.length]);
    for (const name of order) {
      for (let i = done; i < done + n; i++) {
        const t0 = performance.now();
        await variants[name](i);
        times[name].push(performance.now() - t0);
      }
    }
    done += n;
  }
  return Object.fromEntries(names.map((n) => [n, median(times[n])]));
}

let callSeq = 0;
/** Invoke a tool as the agent's ToolNode would (graph state in `state`, thread id in `configurable`). */
function call(t, args, mounts) {
  return t.invoke(args, { configurable: { thread_id: "bench" }, state: { thread_data: mounts }, toolCallId: `call_${++callSeq}` });
}

/** A text of about `bytes` bytes in lines of ~70 characters. */
function sampleText(bytes) {
  const lines = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${String(i).padStart(4, "0")} const value_${i} = compute(${i}, "lorem ipsum dolor sit amet"); // note`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n") + "\n";
}

export async function benchTools() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "deerflow-bench-tools-")));
  try {
    const base = join(root, "threads", "bench");
    const mounts = { workspace_path: join(base, "workspace"), uploads_path: join(base, "uploads"), outputs_path: join(base, "outputs") };
    for (const p of Object.values(mounts)) mkdirSync(p, { recursive: true });
    const cwd = mounts.workspace_path;
    const text = sampleText(20 * 1024);
    const lineCount = text.split("\n").length - 1;
    const samplePath = join(cwd, "sample.txt");
    writeFileSync(samplePath, text);

    const bash = createBashTool();
    const readTool = createReadFileTool();
    const writeTool = createWriteFileTool();

    // Sanity: the tools do what the baselines do.
    const echoed = await call(bash, { command: "echo ok" }, mounts);
    if (!String(echoed.content ?? echoed).includes("ok")) throw new Error(`bash tool returned ${JSON.stringify(echoed)}`);
    const read = await call(readTool, { path: "sample.txt" }, mounts);
    if (!String(read.content ?? read).includes(`${lineCount}→`)) throw new Error("read_file did not return the numbered sample");

    const rows = [];
    const addRows = (section, results, baseline) => {
      for (const [name, ms] of Object.entries(results)) rows.push({ section, name, ms, ratio: ms / results[baseline] });
    };

    // 1. bash `true`.
    const bashBare = 'bare execa("bash", ["-c", "true"], { cwd })';
    const bashOpts = "bare execa + the tool's options (detached, scrubbed env, all)";
    addRows(
      "bash",
      await interleaved(
        {
          [bashBare]: () => execa("bash", ["-c", "true"], { cwd }),
          [bashOpts]: () =>
            execa("bash", ["-c", "true"], {
              cwd,
              env: scrubEnv(),
              extendEnv: false,
              detached: true,
              stdin: "ignore",
              all: true,
              reject: false,
              stripFinalNewline: false,
              maxBuffer: 50_000_000,
            }),
          [`bash tool \`true\` (${findBwrap() ? "in the bubblewrap session" : "no bwrap: direct"})`]: () => call(bash, { command: "true" }, mounts),
          // The design not taken: a fresh sandbox per command (why the session exists).
          ...(findBwrap()
            ? {
                "fresh bwrap per command `true`": () =>
                  execa(
                    findBwrap(),
                    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-pid", "--die-with-parent", "--cap-drop", "ALL", "--chdir", cwd, "bash", "-c", "true"],
                    {
                      env: scrubEnv(),
                      extendEnv: false,
                      reject: false,
                    },
                  ),
              }
            : {}),
        },
        BASH_ITERS,
      ),
      bashBare,
    );

    // 2. read_file on the ~20 KB sample.
    const readBare = "bare fs.promises.readFile";
    addRows(
      "read_file",
      await interleaved(
        {
          [readBare]: () => readFile(samplePath),
          "bare readFile + split + number lines": async () => {
            const lines = (await readFile(samplePath, "utf8")).split("\n");
            if (lines[lines.length - 1] === "") lines.pop();
            return lines.map((l, k) => `${String(k + 1).padStart(6, " ")}→${l}`).join("\n");
          },
          "read_file tool": () => call(readTool, { path: "sample.txt" }, mounts),
        },
        FILE_ITERS,
      ),
      readBare,
    );

    // 3. write_file of the same ~20 KB text to a NEW file each call (overwriting would need a prior read_file).
    const writeBare = "bare fs.promises.writeFile (new file)";
    addRows(
      "write_file",
      await interleaved(
        {
          [writeBare]: (i) => writeFile(join(cwd, `bare-${i}.txt`), text),
          "write_file tool (new file)": (i) => call(writeTool, { path: `tool-${i}.txt`, content: text }, mounts),
        },
        FILE_ITERS,
      ),
      writeBare,
    );

    const ms = (x) => (x < 1 ? `${(x * 1000).toFixed(0)} µs` : `${x.toFixed(2)} ms`);
    console.log(`\n## Tool-layer overhead (median per call)`);
    console.log(`| tool | variant | median | vs bare |`);
    console.log(`|---|---|---|---|`);
    for (const r of rows) console.log(`| ${r.section} | ${r.name} | ${ms(r.ms)} | ${r.ratio.toFixed(2)}x |`);
    console.log(
      `(bash: ${BASH_ITERS} calls per variant; file tools: ${FILE_ITERS} calls per variant on a ${(text.length / 1024).toFixed(1)} KB, ${lineCount}-line file; ` +
        `${WARMUP} warm-up calls each; baseline and tool batches interleaved)`,
    );
    const tool = rows.find((r) => r.section === "bash" && r.name.startsWith("bash tool"));
    if (tool) console.log(`bash tool vs plain execa: ${tool.ratio.toFixed(2)}x per command (target ≤ 1.5x)`);
    return rows;
  } finally {
    await closeShellSessions();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTools();
