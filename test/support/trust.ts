// Tests whose project .deerflowrc sets keys that need trust record that trust as the user would: through the same
// trust-store function `deerflow trust` calls, in the data home the command under test uses (no bypass).
import { join } from "node:path";
import { trustFolder } from "../../src/config/trust-store.js";

/** Trusts `dir`'s .deerflowrc (default: the project folder) as it is now, in `trustHome` (a sandbox's DEERFLOW_HOME). */
export function trustProject(sb: { home: string; cwd: string }, dir = sb.cwd): void {
  trustFolder(sb.home, join(dir, ".deerflowrc"));
}
