// The supervisor that runs INSIDE a sandbox session (started once per chat or run as `node -e SUPERVISOR_SOURCE`,
// pid 2 of the session's own PID namespace; bwrap's reaper is pid 1). It reads one JSON request per line on stdin
// and answers JSON lines on stdout:
//   → {op:"run", id, cmd, cwd, log?}   a command (`bash -c cmd`, its own process group); with `log` a background
//                                      job whose output goes to that file and which survives the clean-up below
//   → {op:"kill", id, signal}          signal a command's or job's process group (timeouts, cancels, kill requests)
//   ← {id, out}                        output as it arrives (stdout and stderr in arrival order)
//   ← {id, end, code, signal, max}     the command ended and the clean-up is done
//   ← {alive: true}                    every second while a command runs
// WHY the clean-up sweep: `&`, nohup, setsid and double forks all escape a process group, but none escapes the PID
// namespace. When a command ends, every process in the namespace except pid 1, the supervisor, the background jobs
// and the commands still running (each: its session and its descendants) is SIGKILLed, so nothing a command left
// behind outlives it. (The price: a process that a still-running command detached twice over, out of its session
// and its tree, goes too.) The supervisor is no more privileged than the commands: the host trusts nothing it
// says beyond parsing it.
// Plain JavaScript in a string so the same text runs from src (tests) and dist, with no file to find at run time.
export const SUPERVISOR_SOURCE = String.raw`
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const { StringDecoder } = require("node:string_decoder");
const MAX = 50_000_000;
const jobs = new Map(); // id -> { child, bg, pid }
let foreground = 0;
function send(o) { process.stdout.write(JSON.stringify(o) + "\n"); }
function stat(pid) {
  try {
    const s = fs.readFileSync("/proc/" + pid + "/stat", "utf8");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { ppid: +f[1], sid: +f[3] };
  } catch { return undefined; }
}
function sweep() {
  // Only inside the sandbox's own PID namespace, where bubblewrap is pid 1 and this supervisor pid 2: anywhere else
  // (a fake bwrap that ran it on the host) the sweep would SIGKILL every process the user can signal (the twelfth pass).
  if (process.pid > 2) return;
  const pids = fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p)).map(Number);
  const info = new Map();
  for (const p of pids) { const s = stat(p); if (s) info.set(p, s); }
  const keepRoots = new Set();
  const keepSids = new Set();
  // Background jobs, and foreground commands still running (their session and descendants).
  for (const j of jobs.values()) if (j.pid && (j.bg || !j.exited)) { keepRoots.add(j.pid); keepSids.add(j.pid); }
  const kept = (p) => {
    for (let q = p, n = 0; q > 1 && n < 4096; n++) {
      if (keepRoots.has(q)) return true;
      const s = info.get(q); if (!s) return false;
      if (keepSids.has(s.sid)) return true;
      q = s.ppid;
    }
    return false;
  };
  for (const p of info.keys()) {
    if (p <= 1 || p === process.pid || kept(p)) continue;
    try { process.kill(p, "SIGKILL"); } catch {}
  }
}
function killGroup(pid, sig) { try { process.kill(-pid, sig); } catch {} }
// The child's ends of its stdout/stderr (node's stdio pipes are socket pairs: our end is another inode), read
// right after spawn, while the child surely exists.
function pipesOf(pid) {
  const out = [];
  for (const fd of [1, 2]) { try { out.push(fs.readlinkSync("/proc/" + pid + "/fd/" + fd)); } catch {} }
  return out;
}
// Kills the processes (a command's leftovers) that still hold one of these pipes open.
function killHolders(pipes) {
  if (pipes.length === 0) return;
  for (const p of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(p) || +p === process.pid || +p === 1) continue;
    let fds; try { fds = fs.readdirSync("/proc/" + p + "/fd"); } catch { continue; }
    for (const fd of fds) {
      let l; try { l = fs.readlinkSync("/proc/" + p + "/fd/" + fd); } catch { continue; }
      if (pipes.includes(l)) { try { process.kill(+p, "SIGKILL"); } catch {} break; }
    }
  }
}
function run(req) {
  const bg = typeof req.log === "string";
  let out = "ignore";
  if (bg) { try { out = fs.openSync(req.log, "a"); } catch (e) { send({ id: req.id, out: String(e.message) + "\n" }); send({ id: req.id, end: true, code: 127 }); return; } }
  let child;
  try {
    child = spawn("bash", ["-c", req.cmd], { cwd: req.cwd, detached: true, stdio: bg ? ["ignore", out, out] : ["ignore", "pipe", "pipe"] });
  } catch (e) { send({ id: req.id, out: String(e.message) + "\n" }); send({ id: req.id, end: true, code: 127 }); return; }
  if (bg) fs.closeSync(out);
  const job = { child, bg, pid: child.pid };
  jobs.set(req.id, job);
  if (!bg) foreground++;
  let size = 0, max = false, exit, closed = false;
  const forward = (stream) => {
    const dec = new StringDecoder("utf8");
    stream.on("data", (b) => {
      if (max) return;
      size += b.length;
      if (size > MAX) { max = true; killGroup(child.pid, "SIGKILL"); return; }
      const t = dec.write(b); if (t) send({ id: req.id, out: t });
    });
  };
  const pipes = bg || !child.pid ? [] : pipesOf(child.pid);
  if (!bg) { forward(child.stdout); forward(child.stderr); }
  const finish = () => {
    if (!exit || (!bg && !closed)) return;
    jobs.delete(req.id);
    send({ id: req.id, end: true, code: exit.code, signal: exit.signal, max });
  };
  child.on("error", (e) => { send({ id: req.id, out: String(e.message) + "\n" }); exit = exit || { code: 127, signal: null }; closed = true; finish(); });
  child.on("exit", (code, signal) => {
    exit = { code, signal };
    job.exited = true;
    if (!bg) {
      foreground--;
      killGroup(child.pid, "SIGKILL");
      // Whatever else the command left running goes: everything but the other running commands and the
      // background jobs; and at once whatever still holds this command's output open. (When the child ended
      // before its pipes could be read, the sweep alone covers it.)
      killHolders(pipes);
      sweep();
    }
    finish();
  });
  child.on("close", () => { closed = true; finish(); });
}
let buf = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    let req; try { req = JSON.parse(line); } catch { continue; }
    if (req.op === "run") run(req);
    else if (req.op === "kill") { const j = jobs.get(req.id); if (j && j.pid) killGroup(j.pid, req.signal || "SIGKILL"); }
  }
});
process.stdin.on("end", () => process.exit(0));
// A heartbeat while commands run: a supervisor stopped by a command (ptrace, SIGSTOP) goes silent, and the host
// then ends the sandbox instead of waiting out the command's timeout.
setInterval(() => { if (foreground > 0) send({ alive: true }); }, 1000).unref();
send({ ready: true });
`;
