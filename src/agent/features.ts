// RuntimeFeatures: each feature is false (off), true (the built-in middleware) or a middleware instance (use
// that one instead). `buildFeatureStack` turns them into DeerFlow's assembly order, which is semantics: before*
// hooks run in this order, after* hooks in reverse, and the first entry is the outermost wrapper.
import type { AgentMiddleware } from "langchain";
import { clarificationMiddleware } from "../middleware/clarification.js";
import { danglingToolCallMiddleware } from "../middleware/dangling-tool-call.js";
import { loopDetectionMiddleware } from "../middleware/loop-detection.js";
import { sandboxMiddleware } from "../middleware/sandbox.js";
import { threadDataMiddleware } from "../middleware/thread-data.js";
import { titleMiddleware } from "../middleware/title.js";
import { todoMiddleware } from "../middleware/todo.js";
import { tokenBudgetMiddleware } from "../middleware/token-budget.js";
import { toolErrorHandlingMiddleware } from "../middleware/tool-error-handling.js";
import { invalidToolCallMiddleware } from "../middleware/invalid-tool-call.js";
import { toolCallIdsMiddleware } from "../middleware/tool-call-ids.js";
import { answerSecretMaskingMiddleware } from "../middleware/answer-secret-masking.js";
import { toolResultSecretMaskingMiddleware } from "../middleware/tool-result-secret-masking.js";
import { subagentLimitMiddleware } from "../middleware/subagent-limit.js";
import { uploadsMiddleware } from "../middleware/uploads.js";
import { memoryMiddleware } from "../middleware/memory.js";
import { viewImageMiddleware } from "../middleware/view-image.js";
import { AgentOptionsError } from "./errors.js";
import { isMiddleware } from "./is-middleware.js";

export type FeatureValue = boolean | AgentMiddleware;

export interface RuntimeFeatures {
  sandbox: FeatureValue;
  memory: FeatureValue;
  summarization: FeatureValue;
  subagent: FeatureValue;
  vision: FeatureValue;
  autoTitle: FeatureValue;
  guardrail: FeatureValue;
  tokenBudget: FeatureValue;
  loopDetection: FeatureValue;
}

export const FEATURE_NAMES = [
  "sandbox",
  "memory",
  "summarization",
  "subagent",
  "vision",
  "autoTitle",
  "guardrail",
  "tokenBudget",
  "loopDetection",
] as const satisfies readonly (keyof RuntimeFeatures)[];

export const DEFAULT_FEATURES: Readonly<RuntimeFeatures> = Object.freeze({
  sandbox: true,
  memory: false,
  summarization: false,
  subagent: false,
  vision: false,
  autoTitle: false,
  guardrail: false,
  tokenBudget: false,
  loopDetection: true,
});

/**
 * Features that have no sensible built-in: they need a configured instance. Summarization too (DeerFlow's rule): a
 * summary needs a model and the model's window, which `true` cannot say; a guessed window compacts too late or too early.
 */
const NEEDS_INSTANCE: Partial<Record<keyof RuntimeFeatures, string>> = {
  guardrail: "a guardrail middleware configured with its policy",
  summarization: "summarizationMiddleware({ model, contextWindow }) configured for the model",
};

export const TERMINAL_MIDDLEWARE = "Clarification";

export function resolveFeatures(input: Partial<Record<string, unknown>> | undefined): RuntimeFeatures {
  const out: RuntimeFeatures = { ...DEFAULT_FEATURES };
  for (const [key, value] of Object.entries(input ?? {})) {
    if (!(FEATURE_NAMES as readonly string[]).includes(key)) {
      throw new AgentOptionsError("invalid_feature_value", `Unknown feature "${key}". Known features: ${FEATURE_NAMES.join(", ")}.`);
    }
    if (value === undefined) continue;
    if (typeof value !== "boolean" && !isMiddleware(value)) {
      throw new AgentOptionsError("invalid_feature_value", `features.${key} must be true, false or a middleware instance (got ${value === null ? "null" : typeof value}).`);
    }
    const k = key as keyof RuntimeFeatures;
    if (value === true && NEEDS_INSTANCE[k]) {
      throw new AgentOptionsError("feature_needs_instance", `features.${key}: true is not allowed: pass ${NEEDS_INSTANCE[k]} instead.`);
    }
    out[k] = value as FeatureValue;
  }
  return out;
}

/** false → nothing; an instance → itself; true → the built-in (resolveFeatures already refused `true` where none exists). */
function pick(value: FeatureValue, builtIn?: () => AgentMiddleware): AgentMiddleware | undefined {
  if (value === false) return undefined;
  return value === true ? builtIn?.() : value;
}

/** The stack without extras and without the terminal Clarification, in DeerFlow's order. */
/** The todo tool: off, on (the model keeps a list when it helps), or plan (write the plan first, then act). */
export type TodoSetting = "off" | "on" | "plan";

export function buildFeatureStack(features: RuntimeFeatures, todos: TodoSetting): AgentMiddleware[] {
  const stack: (AgentMiddleware | undefined)[] = [];
  if (features.sandbox !== false) {
    stack.push(
      threadDataMiddleware(),
      uploadsMiddleware(),
      pick(features.sandbox, () => sandboxMiddleware()),
    );
  }
  stack.push(danglingToolCallMiddleware(), toolCallIdsMiddleware(), answerSecretMaskingMiddleware(), toolResultSecretMaskingMiddleware());
  stack.push(pick(features.guardrail));
  stack.push(toolErrorHandlingMiddleware());
  stack.push(invalidToolCallMiddleware());
  // Only an instance (resolveFeatures refuses `true`): the lead agent passes one built for its model and window.
  stack.push(pick(features.summarization));
  if (todos !== "off") stack.push(todoMiddleware({ planFirst: todos === "plan" }));
  stack.push(pick(features.autoTitle, () => titleMiddleware()));
  // The built-in queues each finished run in the data directory's memory store; a drain (memory/worker.ts) extracts.
  stack.push(pick(features.memory, () => memoryMiddleware()));
  stack.push(pick(features.vision, () => viewImageMiddleware({ withTool: features.sandbox !== false })));
  stack.push(pick(features.subagent, () => subagentLimitMiddleware()));
  stack.push(pick(features.loopDetection, () => loopDetectionMiddleware()));
  stack.push(pick(features.tokenBudget, () => tokenBudgetMiddleware()));
  return stack.filter((m): m is AgentMiddleware => m !== undefined);
}

export function terminalMiddleware(): AgentMiddleware {
  return clarificationMiddleware();
}
