// How checkpoints store channels (docs/configuration.md, DEERFLOW_CHECKPOINT_MODE): `full` snapshots or `delta` writes. Every checkpoint records its mode
// under CHANNEL_MODE_METADATA_KEY; a thread is opened only in the mode it was saved in.
export const CHANNEL_MODES = ["full", "delta"] as const;
export type ChannelMode = (typeof CHANNEL_MODES)[number];

/** Metadata key holding the channel mode a checkpoint was written in. Absent → "full". */
export const CHANNEL_MODE_METADATA_KEY = "deerflow_channel_mode";

/** The channels a delta-mode thread stores as per-step writes (ThreadState's `messages`); the rest are whole values. */
export const DELTA_CHANNELS: readonly string[] = ["messages"];

/** Metadata key set on a step checkpoint that pruning slimmed (see persistence/checkpoint-prune.ts). */
export const PRUNED_METADATA_KEY = "deerflow_pruned";
