// Typed errors are found down a cause chain, also when they come from another copy of errors.js (the TUI bundle
// carries its own), so the TUI prints the same one line the CLI does.
import { describe, expect, it } from "vitest";
import { ExitCode, UsageError, findDeerflowError, formatErrorLine } from "../../src/errors.js";

describe("findDeerflowError", () => {
  it("finds a typed error wrapped in causes", () => {
    const typed = new UsageError("Thread x not found.", "List threads with /threads.");
    const wrapped = new Error("MiddlewareError", { cause: new Error("inner", { cause: typed }) });
    expect(findDeerflowError(wrapped)).toBe(typed);
    expect(formatErrorLine(wrapped)).toBe("Thread x not found. List threads with /threads.");
  });

  it("recognises a typed error from another copy of the module by its brand, not instanceof", () => {
    class ForeignError extends Error {
      readonly isDeerflowError = true;
      readonly exitCode = ExitCode.interrupted;
      readonly hint = "Type to continue.";
    }
    const foreign = new ForeignError("Run r on thread t was interrupted.");
    expect(findDeerflowError(new Error("wrapper", { cause: foreign }))?.exitCode).toBe(130);
    expect(formatErrorLine(foreign)).toBe("Run r on thread t was interrupted. Type to continue.");
  });
});
