import { describe, expect, it } from "vitest";
import { DelegationsPanel } from "../../../src/tui/components/DelegationsPanel.js";
import type { DelegationView } from "../../../src/tui/state/types.js";
import { spinnerFrame } from "../../../src/tui/theme.js";
import { frame, visibleWidth } from "./helpers.js";

const T0 = Date.parse("2025-01-01T10:00:00Z");
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const d = (over: Partial<DelegationView>): DelegationView => ({
  id: "d1",
  description: "Explore the repo",
  subagent_type: "explorer",
  status: "running",
  created_at: iso(0),
  updated_at: iso(1_000),
  ...over,
});

describe("DelegationsPanel", () => {
  it("renders nothing without delegations", () => {
    expect(frame(<DelegationsPanel delegations={[]} now={T0} />).text).toBe("");
  });

  it("shows counts, marks, type, status, elapsed and the stop reason", () => {
    const now = T0 + 12_000;
    const { lines } = frame(
      <DelegationsPanel
        now={now}
        delegations={[
          d({ id: "a" }),
          d({ id: "b", status: "pending", description: "Queue work", subagent_type: "general" }),
          d({ id: "c", status: "completed", description: "Write tests", subagent_type: "coder", updated_at: iso(4_100), stop_reason: "turn_capped" }),
          d({ id: "e", status: "timed_out", description: "Slow job", updated_at: iso(65_000) }),
        ]}
      />,
    );
    expect(lines).toEqual([
      "Subagents (2 running, 1 done, 1 failed)",
      `  ${spinnerFrame(now)} Explore the repo (explorer) running · 12s`,
      `  ${spinnerFrame(now)} Queue work (general) pending · 12s`,
      "  ✓ Write tests (coder) completed · 4.1s · turn capped",
      "  ✗ Slow job (explorer) timed out · 1m 05s",
    ]);
  });

  it("shows the runtime's verdict after the status: what failed, or what was verified", () => {
    const { lines } = frame(
      <DelegationsPanel
        now={T0 + 5_000}
        delegations={[
          d({ id: "v1", status: "failed", description: "Run tests", verdict: { verified: false, summary: "1 of 1 acceptance checks failed: command_exits_zero npm test" } }),
          d({ id: "v2", status: "completed", description: "Write report", verdict: { verified: true, summary: "verified: 1 receipt found" } }),
        ]}
      />,
      120,
    );
    expect(lines.slice(1)).toEqual([
      "  ✗ Run tests (explorer) failed · 1.0s · 1 of 1 acceptance checks failed: command_exits_zero npm test",
      "  ✓ Write report (explorer) completed · 1.0s · verified: 1 receipt found",
    ]);
  });

  it("uses the title and skips the elapsed time without created_at", () => {
    const { lines } = frame(<DelegationsPanel title="Subagents (last run)" now={T0} delegations={[d({ status: "failed", created_at: undefined })]} />);
    expect(lines).toEqual(["Subagents (last run) (1 failed)", "  ✗ Explore the repo (explorer) failed"]);
  });

  it("keeps each delegation on one line at 60 columns", () => {
    const long = Array.from({ length: 6 }, (_, i) => d({ id: `x${i}`, description: `Investigate ${"deeply ".repeat(12)}item ${i}`, subagent_type: "general-purpose" }));
    const { lines } = frame(<DelegationsPanel delegations={long} now={T0 + 5_000} />, 60);
    expect(lines).toHaveLength(7);
    for (const l of lines) expect(visibleWidth(l)).toBeLessThanOrEqual(60);
    expect(lines[1]).toMatch(/…$/);
  });
});
