import { describe, expect, it } from "vitest";
import { Spinner } from "../../../src/tui/components/Spinner.js";
import { spinnerFrame } from "../../../src/tui/theme.js";
import { frame, visibleWidth } from "./helpers.js";

describe("Spinner", () => {
  it("shows the frame, Working… and the elapsed time with the cancel hint", () => {
    expect(frame(<Spinner run={{ startedAt: 1_000 }} now={13_500} />).text).toBe(`${spinnerFrame(13_500)} Working… (12s · esc to cancel)`);
  });

  it("says Cancelling… once cancel was asked", () => {
    expect(frame(<Spinner run={{ startedAt: 0, cancelling: true }} now={400} />).text).toBe(`${spinnerFrame(400)} Cancelling… (0.4s)`);
  });

  it("fits one line in a narrow box", () => {
    const { lines } = frame(<Spinner run={{ startedAt: 0 }} now={185_000} />, 20);
    expect(lines).toHaveLength(1);
    expect(visibleWidth(lines[0]!)).toBeLessThanOrEqual(20);
  });
});
