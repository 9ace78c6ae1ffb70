// The runtime's verdict on a subagent's report: its receipts (receipts.ts) and the lead's acceptance checks
// (acceptance-checks.ts) in one record for the ledger, the events and the lead's tool result. A missing receipt or
// a failed check makes the delegation fail: the lead must not read "Task Succeeded" for a claim nothing backs.
import type { AcceptanceCheckResult, DelegationVerdict } from "../state/types.js";

const clip = (text: string, max: number) => {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

function checkLine(c: AcceptanceCheckResult): string {
  return `${c.check} ${clip(c.target, 80)}: ${c.passed ? "passed" : "FAILED"} (${clip(c.detail, 200)})`;
}

/** The verdict, or undefined when there was nothing to verify (no receipts cited, no checks asked for). */
export function buildVerdict(receipts: { cited: string[]; missing: string[] }, checks: AcceptanceCheckResult[]): DelegationVerdict | undefined {
  if (receipts.cited.length === 0 && checks.length === 0) return undefined;
  const failedChecks = checks.filter((c) => !c.passed);
  const verified = receipts.missing.length === 0 && failedChecks.length === 0;
  const parts: string[] = [];
  if (receipts.missing.length > 0) parts.push(`cites tool calls it never made: ${receipts.missing.join(", ")}`);
  if (failedChecks.length > 0) parts.push(`${failedChecks.length} of ${checks.length} acceptance checks failed: ${failedChecks.map((c) => `${c.check} ${clip(c.target, 60)}`).join("; ")}`);
  if (verified) {
    const ok: string[] = [];
    if (receipts.cited.length > 0) ok.push(`${receipts.cited.length} receipt${receipts.cited.length === 1 ? "" : "s"} found`);
    if (checks.length > 0) ok.push(`${checks.length} acceptance check${checks.length === 1 ? "" : "s"} passed`);
    parts.push(`verified: ${ok.join(", ")}`);
  }
  return { verified, receipts_cited: receipts.cited, receipts_missing: receipts.missing, checks, summary: parts.join("; ") };
}

/** The verdict as the lead reads it under the result. */
export function verdictText(v: DelegationVerdict): string {
  const lines = [`Verification by the runtime: ${v.verified ? "passed" : "FAILED"}.`];
  if (v.receipts_cited.length > 0) {
    const found = v.receipts_cited.filter((id) => !v.receipts_missing.includes(id));
    lines.push(`- receipts found in the subagent's tool calls: ${found.length > 0 ? found.join(", ") : "none"}`);
    if (v.receipts_missing.length > 0) lines.push(`- receipts the subagent cites but never made: ${v.receipts_missing.join(", ")}`);
  }
  for (const c of v.checks) lines.push(`- ${checkLine(c)}`);
  return lines.join("\n");
}
