export {
  CHANNEL_MODE_METADATA_KEY,
  CheckpointModeMismatchError,
  DeerflowSqliteSaver,
  GUARDED_SAVER_BRAND,
  isGuardedSaver,
  type ChannelMode,
  type DeerflowSqliteSaverOptions,
} from "./sqlite-saver.js";
