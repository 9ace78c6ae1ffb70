// ThreadState as a LangGraph StateSchema (docs/architecture.md, the thread state). Every field is a ReducedValue (so several
// writers may write it in one step) whose value schema has a default (so createAgent never reports
// "required state fields") and whose input schema accepts null/undefined (the reducers decide what
// those mean). Only `messages` depends on the checkpoint mode: a full ReducedValue, or a DeltaValue
// that checkpoints increments with a snapshot every `snapshotFrequency` updates.
import type { BaseMessage } from "@langchain/core/messages";
import { DeltaValue, ReducedValue, StateSchema, type StateSchemaFields } from "@langchain/langgraph";
import { z } from "zod";
import { mergeAppliedRunInputs } from "./reducers/applied-run-inputs.js";
import { mergeArtifacts } from "./reducers/artifacts.js";
import { mergeBackgroundTasks } from "./reducers/background-tasks.js";
import { mergeDelegations } from "./reducers/delegations.js";
import { mergeGoalOutcome } from "./reducers/goal-outcome.js";
import { mergeGoal } from "./reducers/goal.js";
import { mergeMessageWrites } from "./reducers/messages-delta.js";
import { mergeMessages, type MessagesUpdate } from "./reducers/messages.js";
import { mergePromoted, type PromotedUpdate } from "./reducers/promoted.js";
import { mergeSandbox } from "./reducers/sandbox.js";
import { mergeSkillContext } from "./reducers/skill-context.js";
import { mergeSummaryText } from "./reducers/summary-text.js";
import { mergeTaskHistory } from "./reducers/task-history.js";
import { mergeTaskNotes } from "./reducers/task-notes.js";
import { mergeThreadData } from "./reducers/thread-data.js";
import { mergeTitle } from "./reducers/title.js";
import { oneWritePerStep } from "./reducers/one-write-per-step.js";
import { mergeTodos } from "./reducers/todos.js";
import { mergeToolArtifactProcessed } from "./reducers/tool-artifact-processed.js";
import { mergeToolArtifacts } from "./reducers/tool-artifacts.js";
import { mergeUploadedFiles } from "./reducers/uploaded-files.js";
import { mergeViewedImages } from "./reducers/viewed-images.js";
import {
  AppliedRunInputsSchema,
  ArtifactEntrySchema,
  BackgroundTaskSchema,
  DelegationEntrySchema,
  GoalClearSchema,
  GoalOutcomeSchema,
  GoalStateSchema,
  PromotedSchema,
  PromotedUpdateSchema,
  SandboxStateSchema,
  SkillContextEntrySchema,
  TaskHistorySchema,
  TaskNotesSchema,
  ThreadDataSchema,
  TodoSchema,
  UploadedFileSchema,
  ViewedImagesSchema,
} from "./schemas.js";
import type {
  AppliedRunInputs,
  ArtifactEntry,
  BackgroundTask,
  DelegationEntry,
  GoalClear,
  GoalOutcome,
  GoalState,
  Promoted,
  SandboxState,
  SkillContextEntry,
  TaskHistory,
  TaskNotes,
  ThreadData,
  ThreadStateField,
  ThreadStateValues,
  Todo,
  UploadedFile,
  ViewedImages,
} from "./types.js";

/** How the messages channel is checkpointed. Fixed per process (docs/architecture.md, Checkpoints). */
export type CheckpointChannelMode = "full" | "delta";
export const CHECKPOINT_CHANNEL_MODES = ["full", "delta"] as const satisfies readonly CheckpointChannelMode[];
/** Delta mode: a full snapshot of the messages every this many updates. Keep it within 20..100. */
export const DEFAULT_SNAPSHOT_FREQUENCY = 20;

export type ThreadStateSchemaOptions = { snapshotFrequency?: number };

// ---------------------------------------------------------------------------------------------
// messages

const messagesValueSchema = z.custom<BaseMessage[]>().default(() => []);
const messagesInputSchema = z.custom<MessagesUpdate>();
const messagesJsonSchemaExtra = { langgraph_type: "messages", description: "A list of chat messages" };

export type FullMessagesValue = ReducedValue<BaseMessage[], MessagesUpdate>;
export type DeltaMessagesValue = DeltaValue<BaseMessage[], MessagesUpdate>;
/** The messages field of a mode. For a mode only known at run time, typed as the full one (same value types). */
export type MessagesValueFor<M extends CheckpointChannelMode> = [M] extends ["delta"] ? DeltaMessagesValue : FullMessagesValue;

/** Full mode: the whole list in every checkpoint; one shared instance. */
export const FULL_MESSAGES_VALUE: FullMessagesValue = new ReducedValue(messagesValueSchema, {
  inputSchema: messagesInputSchema,
  reducer: mergeMessages,
  jsonSchemaExtra: messagesJsonSchemaExtra,
});

function checkSnapshotFrequency(value: number | undefined): number {
  const frequency = value ?? DEFAULT_SNAPSHOT_FREQUENCY;
  if (!Number.isInteger(frequency) || frequency <= 0) {
    throw new RangeError(`snapshotFrequency must be a positive integer (got ${String(value)}); the default is ${DEFAULT_SNAPSHOT_FREQUENCY}.`);
  }
  return frequency;
}

/** The messages field for `mode` (delta: a DeltaValue folding writes with the messages reducer). */
export function createMessagesValue<M extends CheckpointChannelMode>(mode: M, opts: ThreadStateSchemaOptions = {}): MessagesValueFor<M> {
  if (mode === "full") return FULL_MESSAGES_VALUE as MessagesValueFor<M>;
  if (mode !== "delta") throw new RangeError(`Unknown checkpoint channel mode ${JSON.stringify(mode)}: use "full" or "delta".`);
  const value: DeltaMessagesValue = new DeltaValue(messagesValueSchema, {
    inputSchema: messagesInputSchema,
    reducer: mergeMessageWrites,
    snapshotFrequency: checkSnapshotFrequency(opts.snapshotFrequency),
    jsonSchemaExtra: messagesJsonSchemaExtra,
  });
  return value as MessagesValueFor<M>;
}

// ---------------------------------------------------------------------------------------------
// the other fields (mode-independent, built once)
// Exported so middleware can declare the ThreadState fields they read or write in their own stateSchema:
// langchain gives a middleware node only the fields its schema declares (plus messages).

const nullable = <S extends z.ZodType>(schema: S) => schema.nullable().default(null);
/** The same thread directories (key order and extra keys aside). */
const samePaths = (a: ThreadData | null | undefined, b: ThreadData | null | undefined) =>
  a?.workspace_path === b?.workspace_path && a?.uploads_path === b?.uploads_path && a?.outputs_path === b?.outputs_path;

export const THREAD_STATE_VALUES = {
  sandbox: new ReducedValue<SandboxState | null, SandboxState | null | undefined>(nullable(SandboxStateSchema), {
    inputSchema: SandboxStateSchema.nullish(),
    reducer: mergeSandbox,
  }),
  // One writer per step (reducers/one-write-per-step.ts): two different values in one step fail the step.
  thread_data: new ReducedValue<ThreadData | null, ThreadData | null | undefined>(nullable(ThreadDataSchema), {
    inputSchema: ThreadDataSchema.nullish(),
    reducer: oneWritePerStep("thread_data", mergeThreadData, (u) => u != null, samePaths),
  }),
  title: new ReducedValue<string | null, string | null | undefined>(nullable(z.string()), {
    inputSchema: z.string().nullish(),
    reducer: oneWritePerStep(
      "title",
      mergeTitle,
      (u) => u !== undefined,
      (a, b) => a === b,
    ),
  }),
  artifacts: new ReducedValue<string[], string[] | null | undefined>(
    z.array(z.string()).default(() => []),
    {
      inputSchema: z.array(z.string()).nullish(),
      reducer: mergeArtifacts,
    },
  ),
  todos: new ReducedValue<Todo[], Todo[] | null | undefined>(
    z.array(TodoSchema).default(() => []),
    {
      inputSchema: z.array(TodoSchema).nullish(),
      reducer: mergeTodos,
    },
  ),
  goal: new ReducedValue<GoalState | null, GoalState | GoalClear | null | undefined>(nullable(GoalStateSchema), {
    inputSchema: z.union([GoalStateSchema, GoalClearSchema]).nullish(),
    reducer: mergeGoal,
  }),
  goal_outcome: new ReducedValue<GoalOutcome | null, GoalOutcome | null | undefined>(nullable(GoalOutcomeSchema), {
    inputSchema: GoalOutcomeSchema.nullish(),
    reducer: mergeGoalOutcome,
  }),
  applied_run_inputs: new ReducedValue<AppliedRunInputs | null, AppliedRunInputs | null | undefined>(nullable(AppliedRunInputsSchema), {
    inputSchema: AppliedRunInputsSchema.nullish(),
    reducer: mergeAppliedRunInputs,
  }),
  uploaded_files: new ReducedValue<UploadedFile[] | null, UploadedFile[] | null | undefined>(nullable(z.array(UploadedFileSchema)), {
    inputSchema: z.array(UploadedFileSchema).nullish(),
    reducer: mergeUploadedFiles,
  }),
  viewed_images: new ReducedValue<ViewedImages, ViewedImages | null | undefined>(
    ViewedImagesSchema.default(() => ({})),
    {
      inputSchema: ViewedImagesSchema.nullish(),
      reducer: mergeViewedImages,
    },
  ),
  promoted: new ReducedValue<Promoted | null, PromotedUpdate>(nullable(PromotedSchema), {
    inputSchema: PromotedUpdateSchema.nullish(),
    reducer: mergePromoted,
  }),
  delegations: new ReducedValue<DelegationEntry[], DelegationEntry[] | null | undefined>(
    z.array(DelegationEntrySchema).default(() => []),
    { inputSchema: z.array(DelegationEntrySchema).nullish(), reducer: mergeDelegations },
  ),
  skill_context: new ReducedValue<SkillContextEntry[], SkillContextEntry[] | null | undefined>(
    z.array(SkillContextEntrySchema).default(() => []),
    { inputSchema: z.array(SkillContextEntrySchema).nullish(), reducer: mergeSkillContext },
  ),
  tool_artifacts: new ReducedValue<ArtifactEntry[], ArtifactEntry[] | null | undefined>(
    z.array(ArtifactEntrySchema).default(() => []),
    { inputSchema: z.array(ArtifactEntrySchema).nullish(), reducer: mergeToolArtifacts },
  ),
  tool_artifact_processed: new ReducedValue<string[], string[] | null | undefined>(
    z.array(z.string()).default(() => []),
    {
      inputSchema: z.array(z.string()).nullish(),
      reducer: mergeToolArtifactProcessed,
    },
  ),
  summary_text: new ReducedValue<string | null, string | null | undefined>(nullable(z.string()), {
    inputSchema: z.string().nullish(),
    reducer: mergeSummaryText,
  }),
  task_notes: new ReducedValue<TaskNotes | null, TaskNotes | null | undefined>(nullable(TaskNotesSchema), {
    inputSchema: TaskNotesSchema.nullish(),
    reducer: mergeTaskNotes,
  }),
  task_history: new ReducedValue<TaskHistory | null, TaskHistory | null | undefined>(nullable(TaskHistorySchema), {
    inputSchema: TaskHistorySchema.nullish(),
    reducer: mergeTaskHistory,
  }),
  background_tasks: new ReducedValue<BackgroundTask[] | null, BackgroundTask[] | null | undefined>(nullable(z.array(BackgroundTaskSchema)), {
    inputSchema: z.array(BackgroundTaskSchema).nullish(),
    reducer: mergeBackgroundTasks,
  }),
};

/** The schema of a middleware (or subgraph) that reads only the thread's directories. */
export const THREAD_DATA_STATE = new StateSchema({ thread_data: THREAD_STATE_VALUES.thread_data });

export type ThreadStateFields<M extends CheckpointChannelMode = CheckpointChannelMode> = {
  messages: MessagesValueFor<M>;
} & typeof THREAD_STATE_VALUES;
export type ThreadStateSchema<M extends CheckpointChannelMode = CheckpointChannelMode> = StateSchema<ThreadStateFields<M>>;

/** Every ThreadState field, in schema order. */
export const THREAD_STATE_FIELDS = [
  "messages",
  "sandbox",
  "thread_data",
  "title",
  "artifacts",
  "todos",
  "goal",
  "goal_outcome",
  "applied_run_inputs",
  "uploaded_files",
  "viewed_images",
  "promoted",
  "delegations",
  "skill_context",
  "tool_artifacts",
  "tool_artifact_processed",
  "summary_text",
  "task_notes",
  "task_history",
  "background_tasks",
] as const satisfies readonly ThreadStateField[];

// A field added to types.ts but not to the schema (or the reverse) fails `tsc` here.
type _FieldsMatch = [ThreadStateField] extends [keyof ThreadStateFields] ? ([keyof ThreadStateFields] extends [ThreadStateField] ? true : never) : never;
const _fieldsMatch: _FieldsMatch = true;
void _fieldsMatch;
// ...and the values a node reads are exactly ThreadStateValues.
type _ValuesMatch = [ThreadStateSchema["State"]] extends [ThreadStateValues] ? ([ThreadStateValues] extends [ThreadStateSchema["State"]] ? true : never) : never;
const _valuesMatch: _ValuesMatch = true;
void _valuesMatch;

/**
 * The ThreadState schema for a checkpoint mode. Full: messages reduce into one list stored whole in
 * every checkpoint. Delta: messages are stored as per-step writes plus a snapshot every
 * `snapshotFrequency` (default 20) updates, rebuilt on read by the same reducer. Every other field is
 * identical in both modes. Returns a new StateSchema each call (the field values are shared).
 */
export function createThreadStateSchema<M extends CheckpointChannelMode>(mode: M, opts: ThreadStateSchemaOptions = {}): ThreadStateSchema<M> {
  const fields: ThreadStateFields<M> = { messages: createMessagesValue(mode, opts), ...THREAD_STATE_VALUES };
  return new StateSchema(fields);
}

export type AdaptStateSchemaOptions = ThreadStateSchemaOptions & {
  /**
   * Add a `messages` field of the mode when the schema has none (for an agent-level schema whose
   * messages would otherwise fall back to the full default). Default false: a middleware schema
   * without messages stays without messages.
   */
  ensureMessages?: boolean;
};

/**
 * A copy of `schema` whose `messages` field (if any, or always with `ensureMessages`) is the
 * messages value of `mode`, so a caller's or a middleware's own state schema agrees with the
 * checkpoint mode. Never mutates `schema`; every other field is carried over as is.
 */
export function adaptStateSchemaToMode<F extends StateSchemaFields>(schema: StateSchema<F>, mode: CheckpointChannelMode, opts: AdaptStateSchemaOptions = {}): StateSchema<F> {
  if (!StateSchema.isInstance(schema)) throw new TypeError("adaptStateSchemaToMode expects a StateSchema instance.");
  const messages = createMessagesValue(mode, opts);
  const fields: StateSchemaFields = { ...schema.fields };
  if ("messages" in fields || opts.ensureMessages === true) fields.messages = messages;
  return new StateSchema(fields) as StateSchema<F>;
}

/**
 * A copy of a middleware's own `schema` fit for the checkpoint mode. Full: its `messages` (if any) is
 * the full messages value. Delta: its `messages` is dropped, because langchain's createAgent
 * (1.5.x) parses every middleware state field with zod before a run and fails on a DeltaValue
 * ("Cannot read properties of undefined (reading 'filter')"); the agent-level schema (first wins in
 * createAgent) owns the messages channel, so it must carry the delta messages value itself
 * (`createThreadStateSchema("delta")`, or `adaptStateSchemaToMode(..., { ensureMessages: true })`).
 * Never mutates `schema`.
 */
export function adaptMiddlewareStateSchemaToMode<F extends StateSchemaFields>(schema: StateSchema<F>, mode: CheckpointChannelMode, opts: ThreadStateSchemaOptions = {}): StateSchema<F> {
  if (mode === "full") return adaptStateSchemaToMode(schema, mode, opts);
  createMessagesValue(mode, opts); // validates mode and options
  if (!StateSchema.isInstance(schema)) throw new TypeError("adaptMiddlewareStateSchemaToMode expects a StateSchema instance.");
  const { messages: _dropped, ...rest } = schema.fields as StateSchemaFields;
  return new StateSchema(rest) as StateSchema<F>;
}
