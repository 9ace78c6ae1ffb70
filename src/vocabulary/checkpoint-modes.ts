// How checkpoints store channels (SPEC §5): `full` snapshots or `delta` writes. Every checkpoint records its mode
// under CHANNEL_MODE_METADATA_KEY; a thread is opened only in the mode it was saved in.
export const CHANNEL_MODES = ["full", "delta"] as const;
export type ChannelMode = (typeof CHANNEL_MODES)[number];

/** Metadata key holding the channel mode a checkpoint was written in. Absent → "full". */
export const CHANNEL_MODE_METADATA_KEY = "deerflow_channel_mode";
