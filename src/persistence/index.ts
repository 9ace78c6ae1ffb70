export {
  CheckpointModeMismatchError,
  DeerflowSqliteSaver,
  GUARDED_SAVER_BRAND,
  isGuardedSaver,
  type DeerflowSqliteSaverOptions,
} from "./sqlite-saver.js";
