// The options `deerflow chat`/`resume` and `deerflow run` share, declared once: the same flag means the same thing
// in both front ends. Where the words differ (a run is headless, a chat asks), each front end's help says its own.
import { InvalidArgumentError, Option } from "commander";
import { APPROVAL_MODES, type ApprovalMode, PERMISSION_MODE_NAMES } from "../vocabulary/approval-modes.js";
import { UsageError } from "../errors.js";

export type FrontEnd = "chat" | "run";

interface Shared {
  flags: string;
  /** One help text for both, or each front end's own. */
  help: string | Record<FrontEnd, string>;
  choices?: readonly string[];
  /** Turns the value into the option's (and says what is wrong with a bad one). */
  parse?: (value: string) => unknown;
}

/** Claude Code's and deerflow's names of a mode → the mode. */
function permissionMode(value: string): ApprovalMode {
  const mode = PERMISSION_MODE_NAMES[value];
  if (!mode || !Object.hasOwn(PERMISSION_MODE_NAMES, value)) throw new InvalidArgumentError(`Allowed choices are ${Object.keys(PERMISSION_MODE_NAMES).join(", ")}.`);
  return mode;
}

const SHARED = {
  thread: { flags: "-t, --thread <id>", help: { chat: "reopen this thread", run: "continue this thread" } },
  continue: { flags: "-c, --continue", help: { chat: "reopen the most recently updated thread", run: "continue the most recently updated thread" } },
  workspace: { flags: "-w, --workspace <dir>", help: "a new thread works in this existing directory (default: the current directory)" },
  scratch: { flags: "--scratch", help: "a new thread works in a fresh per-thread folder instead of the current directory" },
  approval: {
    flags: "--approval <mode>",
    help: {
      chat: "ask (default: file edits with their diff and guarded shell commands ask), auto-edit (only guarded shell commands ask), yolo (nothing asks)",
      run: "what asks (headless: denied unless --yes): ask = file edits and guarded shell commands; auto-edit (default) = guarded shell commands; yolo = nothing",
    },
    choices: APPROVAL_MODES,
  },
  permissionMode: {
    flags: "--permission-mode <mode>",
    help: {
      chat: "--approval by Claude Code's names: default (ask), acceptEdits (auto-edit), bypassPermissions (yolo), plan (read-only until you approve the plan)",
      run: "--approval by Claude Code's names: default (ask), acceptEdits (auto-edit), bypassPermissions (yolo), plan (read-only; the plan is the result)",
    },
    parse: permissionMode,
  },
  goal: {
    flags: "--goal <objective>",
    help: { chat: "work toward this objective until it is met, asking you when it needs to", run: "work unattended until the objective is met (exit 0), needs you (3) or cannot be met (4)" },
  },
  network: { flags: "--no-network", help: 'no network for the agent: shell, web tools, MCP servers (needs bubblewrap; sandbox.network: "off")' },
  memory: {
    flags: "--no-memory",
    help: {
      chat: "neither learn facts from this session nor show remembered ones (same as memory.enabled: false)",
      run: "neither learn facts from this run nor show remembered ones (same as memory.enabled: false)",
    },
  },
  dangerousWorkspace: { flags: "--allow-dangerous-workspace", help: "accept -w /, a system directory, your home directory or one holding the data directory" },
  unconfined: {
    flags: "--dangerously-run-unconfined",
    help: {
      chat: "allow yolo without bubblewrap: the agent's commands then run on this host unasked",
      run: "allow --yes or yolo without bubblewrap: the agent's commands then run on this host unasked",
    },
  },
} satisfies Record<string, Shared>;

export type SharedOptionName = keyof typeof SHARED;

/** The shared option `name` as `front` declares it. */
export function sharedOption(name: SharedOptionName, front: FrontEnd): Option {
  const spec: Shared = SHARED[name];
  const option = new Option(spec.flags, typeof spec.help === "string" ? spec.help : spec.help[front]);
  if (spec.parse) return option.argParser(spec.parse);
  return spec.choices ? option.choices(spec.choices) : option;
}

/** The approval mode asked for by --approval or --permission-mode (one name for one mode; two different ones is a mistake). */
export function approvalFlag(opts: { approval?: ApprovalMode; permissionMode?: ApprovalMode }): ApprovalMode | undefined {
  if (opts.approval && opts.permissionMode && opts.approval !== opts.permissionMode)
    throw new UsageError(`--approval ${opts.approval} and --permission-mode ask for different modes.`, "Give one of them.");
  return opts.permissionMode ?? opts.approval;
}
