// The waits between the guard sweeps while a background job runs: a job can see each sweep (inotify on a folder it
// reads), and a fixed beat told it when the next would come, so it planted right after one sweep and removed the plant
// before the next for the whole run (adversarial pass 42, A42c-1). The waits are drawn from an exponential
// distribution: no wait after a sweep is safe for a plant, and they still average one second.
import { describe, expect, it } from "vitest";
import { SWEEP_MS, nextSweepIn } from "../../src/sandbox/background-guard-sweep.js";

describe("the waits between guard sweeps", () => {
  // The distribution's quantiles, evenly spaced: what a long run of draws looks like, without chance in the test.
  const waits = Array.from({ length: 1000 }, (_, i) => nextSweepIn((i + 0.5) / 1000));

  it("leave no safe time after a sweep: a tenth of them are shorter than a tenth of the average", () => {
    const short = waits.filter((w) => w < SWEEP_MS / 10).length;
    expect(short).toBeGreaterThanOrEqual(90);
    expect(Math.min(...waits)).toBeLessThanOrEqual(1);
  });

  it("average one sweep a second, and never wait more than five", () => {
    const mean = waits.reduce((a, b) => a + b, 0) / waits.length;
    expect(mean).toBeGreaterThan(0.9 * SWEEP_MS);
    expect(mean).toBeLessThan(1.1 * SWEEP_MS);
    expect(Math.max(...waits)).toBeLessThanOrEqual(5 * SWEEP_MS);
  });
});
