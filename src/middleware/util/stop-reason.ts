// The `stop_reason` state field every guard writes (LoopDetection, TokenBudget, the finish-reason guards): why a
// guard stopped the run, null while none did. One definition, so createAgent merges the guards' declarations into
// one channel.
import { z } from "zod";

export const STOP_REASON_VALUE = z.string().nullable().default(null);
