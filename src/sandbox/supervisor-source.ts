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
// namespace. When a command or a background job ends, every process in the namespace except pid 1, the supervisor,
// the background jobs and the commands still running (each: its session and its descendants) is SIGKILLed, so
// nothing a command left behind outlives it. (The price: a process that a still-running command detached twice over, out of its session
// and its tree, goes too.) The supervisor is no more privileged than the commands: the host trusts nothing it
// says beyond parsing it.
// With the proxied network (network-proxy.ts), the supervisor also relays 127.0.0.1:<free port> to the host proxy's
// Unix socket (DEERFLOW_PROXY_SOCKET) and gives commands HTTP(S)_PROXY for it, and listens on each allowed host
// loopback port (DEERFLOW_PROXY_FORWARDS) to tunnel it through the proxy's CONNECT: in-process, so no command pays.
// Plain JavaScript in a string so the same text runs from src (tests) and dist, with no file to find at run time.
export const SUPERVISOR_SOURCE = String.raw`
"use strict";
const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const { StringDecoder } = require("node:string_decoder");
const MAX = 50_000_000;
const jobs = new Map(); // id -> { child, bg, pid }
let foreground = 0;
// Each command runs in a user namespace of its own, where unshare can make one here: attaching to a process (ptrace,
// /proc/<pid>/mem) then needs CAP_SYS_PTRACE in the target's namespace, which a command lacks for this supervisor. A
// job attached to it and made it write a forged end (the forty-second pass's A42c-3). Same uid inside: files, signals
// and the clean-up below work as before.
// PATH as the sandbox has it at its start, programs found once: a host PATH folder that is not bound in (under /tmp or
// /run, fresh and writable here) was made by a command, and its \`bash\` ran every later command (the forty-third
// pass's A43b-1).
process.env.PATH = (process.env.PATH || "").split(":").filter((d) => d.startsWith("/") && fs.existsSync(d)).join(":");
const found = (name) => { for (const d of process.env.PATH.split(":")) { try { fs.accessSync(d + "/" + name, fs.constants.X_OK); return d + "/" + name; } catch {} } return name; };
const BASH = found("bash");
const UNSHARE = found("unshare");
const OWN_NS = ["--user", "--map-current-user"];
const ownNs = (() => { try { return spawnSync(UNSHARE, [...OWN_NS, "true"], { stdio: "ignore", timeout: 10000 }).status === 0; } catch { return false; } })();
function send(o) { process.stdout.write(JSON.stringify(o) + "\n"); }
function stat(pid) {
  try {
    const s = fs.readFileSync("/proc/" + pid + "/stat", "utf8");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { state: f[0], ppid: +f[1], sid: +f[3] };
  } catch { return undefined; }
}
function sweep() {
  // Only inside the sandbox's own PID namespace, where bubblewrap is pid 1 and this supervisor pid 2: anywhere else
  // (a fake bwrap that ran it on the host) the sweep would SIGKILL every process the user can signal (the twelfth pass).
  if (process.pid > 2) return;
  // Round after round while one finds a live leftover: a process forked after a round listed /proc (setsid forks
  // when it leads a group) is found by the next.
  for (let round = 0; round < 50 && sweepOnce(); round++);
}
function sweepOnce() {
  // Freeze first: one kill(-1) stops every process in the namespace at once (a fork racing it is stopped too), so a
  // leftover that re-forks and exits cannot outrun the pids a look at /proc saw (A41c-6), and forty of them busy on
  // every core cannot slow the look either. Then the kept ones go on (one a job had stopped on purpose goes on too).
  try { process.kill(-1, "SIGSTOP"); } catch { return false; } // no other process at all
  const info = listed();
  const dead = new Set(leftovers(info));
  for (const p of dead) { try { process.kill(p, "SIGKILL"); } catch {} }
  for (const p of info.keys()) if (!dead.has(p)) { try { process.kill(p, "SIGCONT"); } catch {} }
  return dead.size > 0;
}
function listed() {
  const info = new Map();
  for (const p of fs.readdirSync("/proc")) { if (!/^\d+$/.test(p)) continue; const s = stat(+p); if (s) info.set(+p, s); }
  return info;
}
// Every process but pid 1, the supervisor, the background jobs and the running foreground commands (each: its
// session and its descendants).
function leftovers(info) {
  const keepRoots = new Set();
  const keepSids = new Set();
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
  const out = [];
  for (const [p, s] of info) if (p > 1 && p !== process.pid && running(p, s) && !kept(p)) out.push(p);
  return out;
}
// A process whose main thread exited reads "Z" in its stat while its other threads run on (setsid + pthread_exit: the
// forty-second pass's A42c-2 planted for the rest of the run): it is over only when every thread is.
function running(pid, s) {
  if (s.state !== "Z" && s.state !== "X") return true;
  let tasks; try { tasks = fs.readdirSync("/proc/" + pid + "/task"); } catch { return false; }
  return tasks.some((t) => { const ts = stat(pid + "/task/" + t); return ts !== undefined && ts.state !== "Z" && ts.state !== "X"; });
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
    const argv = [BASH, "-c", req.cmd];
    child = spawn(ownNs ? UNSHARE : BASH, ownNs ? [...OWN_NS, "--", ...argv] : argv.slice(1), { cwd: req.cwd, detached: true, stdio: bg ? ["ignore", out, out] : ["ignore", "pipe", "pipe"] });
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
    } else {
      // A job's leftovers (a setsid'd loop) end with it too, before its end is told: a job stopped for re-planting
      // git code had its setsid'd child plant on until the next command ended.
      jobs.delete(req.id);
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
const net = require("node:net");
const proxySocket = process.env.DEERFLOW_PROXY_SOCKET;
let forwards = [];
try { forwards = JSON.parse(process.env.DEERFLOW_PROXY_FORWARDS || "[]"); } catch {}
delete process.env.DEERFLOW_PROXY_SOCKET; delete process.env.DEERFLOW_PROXY_FORWARDS;
function toProxy(c) {
  const u = net.connect(proxySocket);
  c.on("error", () => u.destroy()); u.on("error", () => c.destroy());
  c.on("close", () => u.destroy()); u.on("close", () => c.destroy());
  return u;
}
function relay(c) { const u = toProxy(c); c.pipe(u); u.pipe(c); }
// A forwarded port: CONNECT to the allowed target first, then raw bytes both ways (anything but a 200 closes it).
function tunnel(c, target) {
  c.pause();
  const u = toProxy(c);
  u.write("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n");
  let head = Buffer.alloc(0);
  const onData = (b) => {
    head = Buffer.concat([head, b]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) { if (head.length > 8192) c.destroy(); return; }
    u.off("data", onData);
    if (!/^HTTP\/1\.[01] 200/.test(head.toString("latin1", 0, end))) { c.destroy(); u.destroy(); return; }
    if (head.length > end + 4) c.write(head.subarray(end + 4));
    u.pipe(c); c.pipe(u); c.resume();
  };
  u.on("data", onData);
}
function listenAll(list, done) {
  let left = list.length;
  if (left === 0) return done();
  // A port that cannot be listened on (below 1024) is skipped: the rest of the sandbox works without it.
  for (const f of list) { const s = net.createServer((c) => tunnel(c, f.target)); s.on("error", () => { if (--left === 0) done(); }); s.listen(f.port, "127.0.0.1", () => { if (--left === 0) done(); }); }
}
function startNetwork(done) {
  if (!proxySocket) return done();
  listenAll(forwards, () => {
    const server = net.createServer(relay);
    server.on("error", () => done());
    server.listen(0, "127.0.0.1", () => {
      const url = "http://127.0.0.1:" + server.address().port;
      for (const k of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]) process.env[k] = url;
      // The sandbox's own loopback is its own (a server a command starts there), never the host's.
      process.env.NO_PROXY = process.env.no_proxy = "localhost,127.0.0.1,::1";
      // Node 24+ fetch honours these only when asked; older Node ignores the flag.
      process.env.NODE_USE_ENV_PROXY = "1";
      done();
    });
  });
}
// A heartbeat while commands run: a supervisor stopped by a command (ptrace, SIGSTOP) goes silent, and the host
// then ends the sandbox instead of waiting out the command's timeout.
setInterval(() => { if (foreground > 0) send({ alive: true }); }, 1000).unref();
startNetwork(() => send({ ready: true }));
`;
