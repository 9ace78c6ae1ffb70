// Hook fusion: langchain's createAgent makes every beforeAgent/beforeModel/afterModel/afterAgent hook its own graph
// node, and LangGraph checkpoints after every node: with the lead stack that was ~12 steps (and checkpoints) per model
// call against 2 for a bare loop (CPU profile of bench/loop). fuseHooks turns each run of consecutive hooks of one
// kind into ONE node that runs them in the same order, each against the state as the previous hooks left it (the
// graph's own channels apply each write locally), and writes what they wrote as one update with the same final
// state. Jumps stay exact: a group ends at a hook that may jump (`canJumpTo`), so a jump can only come from a group's
// last hook and the fused node takes that hook's place (and its router) in the graph.
// Not fused (kept as their own node): hooks of a middleware with a contextSchema or a non-StateSchema state schema.
import { BaseMessage } from "@langchain/core/messages";
import { type BaseChannel, EmptyChannelError, Overwrite, StateSchema } from "@langchain/langgraph";
import type { AgentMiddleware } from "langchain";
import { THREAD_STATE_FIELDS } from "../state/thread-state.js";

export const STATE_HOOKS = ["beforeAgent", "beforeModel", "afterModel", "afterAgent"] as const;
export type StateHook = (typeof STATE_HOOKS)[number];

type HookFn = (state: Record<string, unknown>, runtime: unknown) => unknown;
type HookSpec = HookFn | { hook: HookFn; canJumpTo?: readonly string[] };
type Update = Record<string, unknown>;
export type Channels = () => Record<string, BaseChannel>;

const hookFn = (h: HookSpec): HookFn => (typeof h === "function" ? h : h.hook);
const jumpsOf = (h: HookSpec): readonly string[] => (typeof h === "function" ? [] : (h.canJumpTo ?? []));

// A write of `undefined` to these channels changes nothing (their reducers read it as "no write"): a fused node writes
// `undefined` to the ones no hook wrote instead of echoing the value back (which for messages is the whole list).
const UNDEFINED_IS_NO_WRITE = new Set<string>(THREAD_STATE_FIELDS);

function fusible(m: AgentMiddleware): boolean {
  const schema = (m as { stateSchema?: unknown }).stateSchema;
  return !(m as { contextSchema?: unknown }).contextSchema && (schema === undefined || StateSchema.isInstance(schema));
}

/** The fields langchain hands a middleware's node: messages, structuredResponse and its own schema's fields. */
function inputKeys(m: AgentMiddleware): string[] {
  const schema = (m as { stateSchema?: StateSchema<any> }).stateSchema;
  return ["messages", "structuredResponse", ...Object.keys(schema?.fields ?? {})];
}

function pick(state: Update, keys: readonly string[]): Update {
  const out: Update = {};
  for (const k of keys) if (k in state) out[k] = state[k];
  return out;
}

/** The channel's value after `writes`, computed by a fresh copy of the graph's own channel (its reducer, Overwrite…). */
function applyWrites(channel: BaseChannel | undefined, current: unknown, writes: unknown[]): unknown {
  if (!channel) return writes.at(-1);
  const copy = channel.fromCheckpoint(current as never);
  copy.update(writes as never[]);
  try {
    return copy.get();
  } catch (e) {
    if (e instanceof EmptyChannelError) return undefined;
    throw e;
  }
}

const sameMessages = (a: unknown, b: unknown) =>
  Array.isArray(a) &&
  Array.isArray(b) &&
  a.length === b.length &&
  a.every((m, i) => m === b[i] || (m instanceof BaseMessage && b[i] instanceof BaseMessage && m.id === b[i].id && m.content === b[i].content));
const sameValue = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * One write to `key` with the effect of the hooks' writes one after another (`writes`, in order): the only write when
 * there is one; for several, the last one or (messages) their concatenation when the channel then reaches the same
 * value (checked here, so ids, RemoveMessages and replacements stay exact), else an Overwrite with that value.
 */
function oneWrite(key: string, channel: BaseChannel | undefined, before: unknown, after: unknown, writes: unknown[]): unknown {
  if (writes.length === 1) return writes[0];
  const real = UNDEFINED_IS_NO_WRITE.has(key) || key === "messages" ? writes.filter((w) => w !== undefined) : writes;
  if (real.length === 0) return undefined;
  if (real.length === 1) return real[0];
  if (key === "messages") {
    const joined = real.flatMap((w) => (Array.isArray(w) ? w : [w]));
    if (sameMessages(applyWrites(channel, before, [joined]), after)) return joined;
  } else if (sameValue(applyWrites(channel, before, [real.at(-1)]), after)) {
    return real.at(-1);
  }
  return new Overwrite(after as never);
}

function constraintError(kind: StateHook, m: AgentMiddleware, target: string, allowed: readonly string[]): Error {
  const suggestion = allowed.length > 0 ? `must be one of: ${allowed.join(", ")}.` : `no ${kind}.canJumpTo defined in middleware ${m.name}`;
  return new Error(`Invalid jump target: ${target}, ${suggestion}.`);
}

/**
 * What the unfused node of `m` would have returned for `state`, exactly as langchain's MiddlewareNode builds it
 * (undefined when the hook made no change: that node writes only its jump sentinel).
 */
async function runOne(kind: StateHook, m: AgentMiddleware, state: Update, runtime: unknown): Promise<Update | undefined> {
  const spec = (m as unknown as Record<string, HookSpec>)[kind]!;
  const view = pick(state, inputKeys(m));
  const result = (await hookFn(spec)(view, runtime)) as Update | undefined;
  if (!result) return undefined;
  if (typeof result.jumpTo === "string" && !jumpsOf(spec).includes(result.jumpTo)) throw constraintError(kind, m, result.jumpTo, jumpsOf(spec));
  if (typeof result === "object" && "type" in result) {
    if (result.type !== "terminate") throw new Error(`Invalid control action: ${JSON.stringify(result)}`);
    if (result.error) throw result.error;
    return { ...view, ...((result.result as Update | undefined) ?? {}), jumpTo: result.jumpTo };
  }
  return { ...view, ...result, jumpTo: result.jumpTo };
}

/** The one hook standing for `group` (in execution order): runs each, state threaded through the channels. */
function fusedHook(kind: StateHook, group: readonly AgentMiddleware[], channels: Channels): HookSpec {
  const hook: HookFn = async (state, runtime) => {
    const chans = channels();
    let current: Update = { ...state };
    const writes = new Map<string, unknown[]>();
    let jumpTo: unknown;
    for (const m of group) {
      const update = await runOne(kind, m, current, runtime);
      if (!update) continue;
      const next = { ...current };
      for (const [k, v] of Object.entries(update)) {
        if (k === "jumpTo") continue;
        if (!writes.has(k)) writes.set(k, []);
        writes.get(k)!.push(v);
        // Only channels are written (langchain drops the rest of a node's output).
        if (k in chans) next[k] = applyWrites(chans[k], current[k], [v]);
      }
      current = next;
      jumpTo = update.jumpTo;
      if (jumpTo) break;
    }
    if (writes.size === 0) return undefined;
    const merged: Update = {};
    // Every field of the fused node's input is written back by langchain: make the untouched ones no-ops.
    for (const k of Object.keys(state)) if (!writes.has(k) && (UNDEFINED_IS_NO_WRITE.has(k) || k === "messages")) merged[k] = undefined;
    for (const [k, ws] of writes) merged[k] = oneWrite(k, chans[k], state[k], current[k], ws);
    merged.jumpTo = jumpTo;
    return merged;
  };
  const allowed = [...new Set(group.flatMap((m) => jumpsOf((m as unknown as Record<string, HookSpec>)[kind]!)))];
  return allowed.length > 0 ? { hook, canJumpTo: allowed } : hook;
}

const CARRIER = Symbol.for("deerflow.fusedHooks");

/** A middleware fuseHooks made (it carries other middlewares' hooks; not one of the stack's own). */
export function isHookCarrier(m: unknown): boolean {
  return typeof m === "object" && m !== null && (m as Record<symbol, unknown>)[CARRIER] === true;
}

/** A schema with every field the group's hooks read (so the fused node is handed all of them). */
function unionSchema(group: readonly AgentMiddleware[]): StateSchema<any> | undefined {
  const fields: Record<string, unknown> = {};
  for (const m of group) {
    const schema = (m as { stateSchema?: StateSchema<any> }).stateSchema;
    for (const [k, f] of Object.entries(schema?.fields ?? {})) if (!(k in fields)) fields[k] = f;
  }
  return Object.keys(fields).length > 0 ? (new StateSchema(fields as never) as StateSchema<any>) : undefined;
}

/** Consecutive runs (in execution order) of fusible hooks of `kind`; a run ends after a hook that may jump. */
function groupsOf(kind: StateHook, stack: readonly AgentMiddleware[]): number[][] {
  const order = stack.map((_, i) => i).filter((i) => (stack[i] as unknown as Record<string, unknown>)[kind]);
  if (kind === "afterModel" || kind === "afterAgent") order.reverse();
  const groups: number[][] = [];
  let open: number[] = [];
  const close = () => {
    if (open.length > 0) groups.push(open);
    open = [];
  };
  for (const i of order) {
    const m = stack[i]!;
    if (!fusible(m)) {
      close();
      groups.push([i]);
      continue;
    }
    open.push(i);
    if (jumpsOf((m as unknown as Record<string, HookSpec>)[kind]!).length > 0) close();
  }
  close();
  return groups;
}

/**
 * The stack with each run of two or more hooks of a kind moved into one "carrier" middleware (named
 * `<kind>(..<last>)`, so its node is e.g. `beforeModel(..Clarification).before_model`) placed where
 * the run's order among that kind's nodes is kept. The members keep everything else (schemas, tools, wrappers).
 * `channels` gives the compiled graph's channels (known once createAgent has built it).
 */
export function fuseHooks(stack: readonly AgentMiddleware[], channels: Channels): AgentMiddleware[] {
  const members = stack.map((m) => ({ ...m }) as Record<string, unknown>);
  const carriersAfter = new Map<number, AgentMiddleware[]>();
  for (const kind of STATE_HOOKS) {
    for (const group of groupsOf(kind, stack)) {
      if (group.length < 2) continue;
      const ms = group.map((i) => stack[i]!);
      for (const i of group) delete members[i]![kind];
      // Named after the hook that runs last (the node langchain's graph would have written last), so a graph built
      // from a slightly different stack (the runtime's state-only agent) still has the node a checkpoint names.
      const carrier = { name: `${kind}(..${ms.at(-1)!.name})`, [kind]: fusedHook(kind, ms, channels), [CARRIER]: true } as Record<string | symbol, unknown>;
      const schema = unionSchema(ms);
      if (schema) carrier.stateSchema = schema;
      // Before* nodes run in list order, after* in reverse: next to the group's highest index keeps the order.
      const anchor = Math.max(...group);
      carriersAfter.set(anchor, [...(carriersAfter.get(anchor) ?? []), carrier as unknown as AgentMiddleware]);
    }
  }
  return members.flatMap((m, i) => [m as unknown as AgentMiddleware, ...(carriersAfter.get(i) ?? [])]);
}

/** The node that ends a normal run (the last after-agent node, else the model node). */
export function exitNodeOf(nodes: readonly AgentMiddleware[]): string {
  const last = nodes.find((m) => (m as unknown as Record<string, unknown>).afterAgent);
  return last ? `${last.name}.after_agent` : "model_request";
}
