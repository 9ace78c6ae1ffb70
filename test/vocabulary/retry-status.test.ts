// How waits are said: tenths rounded up below 10 s, so a wait of 0.3 s is never announced as "1 s".
import { describe, expect, it } from "vitest";
import { formatWait, retryLine, retryStatus } from "../../src/vocabulary/retry-status.js";

describe("retry status", () => {
  it("says a wait in tenths of a second (rounded up) below 10 s, in whole seconds above", () => {
    expect([0, 1, 100, 300, 301, 2000, 9950, 12_300].map(formatWait)).toEqual(["0 s", "0.1 s", "0.1 s", "0.3 s", "0.4 s", "2 s", "10 s", "13 s"]);
  });

  it("a countdown names the wait it takes and never shows 0 while it waits", () => {
    expect(retryStatus({ attempt: 2, max_attempts: 4 }, 300)).toBe("retrying in 0.3 s, attempt 2 of 4");
    expect(retryStatus({ attempt: 2, max_attempts: 4 }, 20)).toBe("retrying in 0.1 s, attempt 2 of 4");
    expect(retryStatus({ attempt: 4, max_attempts: 4 }, 0)).toBe("attempt 4 of 4…");
    expect(retryLine({ attempt: 3, max_attempts: 4, delay_ms: 700, reason: "HTTP 503" })).toBe("model endpoint: HTTP 503; retrying in 0.7 s, attempt 3 of 4");
    // A jittered wait can be zero; the log still says a retry happens (a faults test once missed "retrying").
    expect(retryLine({ attempt: 2, max_attempts: 4, delay_ms: 0, reason: "HTTP 503" })).toBe("model endpoint: HTTP 503; retrying now, attempt 2 of 4");
  });
});
