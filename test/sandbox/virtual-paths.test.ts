// Without a sandbox the command line gets the thread's host folders in place of /mnt/user-data and /mnt/skills, and
// the audit judges each word as that replacement leaves it. A mention split by quotes or a backslash is not replaced
// in the line, yet reads as the mention once bash removes the quotes: `cat D/mnt/user-data/work''space/L` opened a
// link the repository shipped while the audit judged the workspace (the thirty-second pass's A32c-6). Refused instead.
import { describe, expect, it } from "vitest";
import { SandboxPathError, VIRTUAL_ROOT } from "../../src/sandbox/paths.js";
import type { ThreadPaths } from "../../src/sandbox/provider.js";
import { toHostCommand } from "../../src/sandbox/virtual-paths.js";

const paths = { workspace_path: "/w/ws", uploads_path: "/w/up", outputs_path: "/w/out" } as ThreadPaths;
const skills = { x: "/w/skills/x" };

describe("toHostCommand", () => {
  it.each([
    `cat D${VIRTUAL_ROOT}/work''space/L`,
    `cat ${VIRTUAL_ROOT}/"workspace"/N`,
    `cat '${VIRTUAL_ROOT}/workspac'e/N`,
    `cat ${VIRTUAL_ROOT}/work\\space/N`,
    "cat /mnt/sk''ills/x/F",
    // …or continued by one (A33b-4), alone or beside a split one so the counts balance
    `cat D${VIRTUAL_ROOT}/workspace'-infra'/prod.tfvars`,
    `cat D${VIRTUAL_ROOT}/workspace""-infra/x`,
    `cat D${VIRTUAL_ROOT}/workspace\\.bak/x`,
    `cat D${VIRTUAL_ROOT}/work''space/N; echo D${VIRTUAL_ROOT}/workspace'x'`,
  ])("refuses %j, a mention split or continued by quotes or a backslash", (cmd) => {
    expect(() => toHostCommand(cmd, paths, skills)).toThrow(SandboxPathError);
  });
  it.each([
    [`cat ${VIRTUAL_ROOT}/workspace/a.txt`, "cat /w/ws/a.txt"],
    [`cat '${VIRTUAL_ROOT}/workspace/a b.txt'`, "cat '/w/ws/a b.txt'"],
    [`cat "${VIRTUAL_ROOT}/outputs/r.md" /mnt/skills/x/SKILL.md`, 'cat "/w/out/r.md" /w/skills/x/SKILL.md'],
    ['echo "it\'s done"', 'echo "it\'s done"'],
  ])("replaces %j whole", (cmd, host) => {
    expect(toHostCommand(cmd, paths, skills)).toBe(host);
  });
});
