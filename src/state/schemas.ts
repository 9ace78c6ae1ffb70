// Zod (v4) schemas for the ThreadState shapes in `types.ts`. Object schemas are loose: unknown keys
// pass through untouched, so a writer that adds a field (a verdict, a blob ref) never loses it on the
// way into state. Limits that the reducers enforce by truncation (skill description, result brief)
// are NOT validation errors here: a long brief must not crash a run.
import { z } from "zod";
import { DENIERS } from "../vocabulary/permission-denials.js";
import {
  ACCEPTANCE_CHECK_KINDS,
  DEFAULT_MAX_CONTINUATIONS,
  DEFAULT_MAX_NO_PROGRESS_CONTINUATIONS,
  DELEGATION_STATUSES,
  DELEGATION_STOP_REASONS,
  GOAL_BLOCKERS,
  GOAL_CLEAR,
  GOAL_OBJECTIVE_MAX_CHARS,
  TODO_STATUSES,
  type ArtifactEntry,
  type DelegationEntry,
  type GoalEvaluation,
  type GoalOutcome,
  type GoalState,
  type Promoted,
  type SandboxState,
  type SkillContextEntry,
  type ThreadData,
  type Todo,
  type ViewedImage,
} from "./types.js";

const count = () => z.number().int().min(0);

export const BlockerSchema = z.enum(GOAL_BLOCKERS);

export const GoalEvaluationSchema = z.looseObject({
  satisfied: z.boolean(),
  blocker: BlockerSchema,
  reason: z.string(),
  evidence_summary: z.string().optional(),
  relied_on_assumption: z.boolean().optional(),
});

export const GoalStateSchema = z.looseObject({
  objective: z.string().min(1).max(GOAL_OBJECTIVE_MAX_CHARS),
  status: z.literal("active"),
  created_at: z.string(),
  updated_at: z.string(),
  continuation_count: count().default(0),
  max_continuations: count().default(DEFAULT_MAX_CONTINUATIONS),
  no_progress_count: count().default(0),
  max_no_progress_continuations: count().default(DEFAULT_MAX_NO_PROGRESS_CONTINUATIONS),
  last_evaluation: GoalEvaluationSchema.optional(),
});

/** The goal clear marker (see GOAL_CLEAR). */
export const GoalClearSchema = z.literal(GOAL_CLEAR);

export const GoalOutcomeSchema = z.looseObject({
  status: z.literal("achieved"),
  objective: z.string(),
  goal_created_at: z.string(),
  achieved_at: z.string(),
  continuation_count: count(),
  max_continuations: count(),
  reason: z.string(),
  relied_on_assumption: z.boolean(),
  reply_message_id: z.string().nullable(),
});

export const DelegationStatusSchema = z.enum(DELEGATION_STATUSES);
export const DelegationStopReasonSchema = z.enum(DELEGATION_STOP_REASONS);

export const AcceptanceCheckResultSchema = z.looseObject({
  check: z.enum(ACCEPTANCE_CHECK_KINDS),
  target: z.string(),
  passed: z.boolean(),
  detail: z.string(),
});

export const DelegationVerdictSchema = z.looseObject({
  verified: z.boolean(),
  receipts_cited: z.array(z.string()),
  receipts_missing: z.array(z.string()),
  checks: z.array(AcceptanceCheckResultSchema),
  summary: z.string(),
});

export const PermissionDenialSchema = z.looseObject({
  tool: z.string(),
  tool_call_id: z.string().optional(),
  arguments: z.string(),
  reason: z.string(),
  denied_by: z.enum(DENIERS),
  delegation_id: z.string().optional(),
});

export const DelegationEntrySchema = z.looseObject({
  id: z.string().min(1),
  run_id: z.string(),
  description: z.string(),
  subagent_type: z.string(),
  status: DelegationStatusSchema,
  result_brief: z.string().optional(),
  result_sha256: z.string().optional(),
  result_ref: z.string().optional(),
  stop_reason: DelegationStopReasonSchema.optional(),
  verdict: DelegationVerdictSchema.optional(),
  permission_denials: z.array(PermissionDenialSchema).optional(),
  created_at: z.string(),
  updated_at: z.string().optional(),
});

export const TodoSchema = z.looseObject({
  content: z.string(),
  status: z.enum(TODO_STATUSES),
});

export const ViewedImageSchema = z.looseObject({
  mime_type: z.string(),
  size: count(),
  actual_path: z.string(),
  sha256: z.string(),
  source_sandbox_id: z.string().optional(),
  blob_ref: z.unknown().optional(),
});
export const ViewedImagesSchema = z.record(z.string(), ViewedImageSchema);

export const PromotedSchema = z.looseObject({
  catalog_hash: z.string(),
  names: z.array(z.string()),
  turn_id: z.string().optional(),
});
/** What may be written to `promoted`: a promotion, or `{}` (an empty write that keeps the current one). */
export const PromotedUpdateSchema = z.union([PromotedSchema, z.strictObject({})]);

export const SkillContextEntrySchema = z.looseObject({
  name: z.string(),
  path: z.string().min(1),
  description: z.string(),
  loaded_at: z.number(),
});

export const ArtifactEntrySchema = z.looseObject({
  handle: z.string().min(1),
  tool_name: z.string(),
  tool_call_id: z.string(),
  call_index: z.number(),
  artifact_type: z.string(),
  display_name: z.string(),
  real_ref: z.string(),
  mime_type: z.string().optional(),
  created_at: z.string(),
  consumed_by: z.array(z.string()).optional(),
});

export const ThreadDataSchema = z.looseObject({
  workspace_path: z.string().nullish(),
  uploads_path: z.string().nullish(),
  outputs_path: z.string().nullish(),
});

export const SandboxStateSchema = z.looseObject({
  sandbox_id: z.string().nullish(),
});

const looseRecord = () => z.record(z.string(), z.unknown());
export const UploadedFileSchema = looseRecord();
export const BackgroundTaskSchema = looseRecord();
export const AppliedRunInputsSchema = looseRecord();
export const TaskNotesSchema = looseRecord();
export const TaskHistorySchema = looseRecord();

// ---------------------------------------------------------------------------------------------
// Compile-time check: every schema parses to (a subtype of) its type, and every value of the type
// is valid input for the schema. A drift between types.ts and this file fails `tsc`.
type Same<S extends z.ZodType, T> = [z.output<S>] extends [T] ? ([T] extends [z.input<S>] ? true : false) : false;
type Assert<T extends true> = T;
export type _SchemasMatchTypes = [
  Assert<Same<typeof GoalEvaluationSchema, GoalEvaluation>>,
  Assert<Same<typeof GoalStateSchema, GoalState>>,
  Assert<Same<typeof GoalOutcomeSchema, GoalOutcome>>,
  Assert<Same<typeof DelegationEntrySchema, DelegationEntry>>,
  Assert<Same<typeof TodoSchema, Todo>>,
  Assert<Same<typeof ViewedImageSchema, ViewedImage>>,
  Assert<Same<typeof PromotedSchema, Promoted>>,
  Assert<Same<typeof SkillContextEntrySchema, SkillContextEntry>>,
  Assert<Same<typeof ArtifactEntrySchema, ArtifactEntry>>,
  Assert<Same<typeof ThreadDataSchema, ThreadData>>,
  Assert<Same<typeof SandboxStateSchema, SandboxState>>,
];
