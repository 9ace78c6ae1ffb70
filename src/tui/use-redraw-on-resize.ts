// A resize leaves stale lines: the terminal reflows what Ink already wrote (a narrower window makes the live region
// taller than the rows Ink erases), so old frames of the spinner and the answer stay in the scrollback, and a shorter
// window makes Ink rewrite its whole static output. Once the size settles, the screen and scrollback are cleared and
// the transcript is drawn again at the new size (a new key makes <Static> print every item once more).
import { useStdout } from "ink";
import { useEffect, useState } from "react";

/** Clear the screen, the scrollback, and home the cursor. */
const CLEAR = "\x1b[2J\x1b[3J\x1b[H";
/** A window being dragged sends many resizes: redraw once it has been still this long. */
const SETTLE_MS = 150;

/** A number that changes after each settled resize: the key of the transcript's <Static>. */
export function useRedrawOnResize(): number {
  const { stdout, write } = useStdout();
  const [epoch, setEpoch] = useState(0);
  useEffect(() => {
    const size = () => `${stdout.columns}x${stdout.rows}`;
    let drawn = size();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onResize = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (size() === drawn) return;
        drawn = size();
        // Through Ink, which erases its live region first and draws it again after.
        write(CLEAR);
        setEpoch((e) => e + 1);
      }, SETTLE_MS);
    };
    stdout.on("resize", onResize);
    return () => {
      clearTimeout(timer);
      stdout.off("resize", onResize);
    };
  }, [stdout, write]);
  return epoch;
}
