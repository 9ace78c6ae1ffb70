// "Options declared once": the flags `deerflow chat`/`resume` and `deerflow run` share come from one table
// (src/cli/shared-options.ts), so a flag cannot drift between the front ends (a choice list, a short name).
import { describe, expect, it } from "vitest";
import type { Command } from "commander";
import { buildProgram } from "../../src/cli/main.js";
import { sharedOption } from "../../src/cli/shared-options.js";

const program = buildProgram();
const command = (name: string) => program.commands.find((c) => c.name() === name)!;
const flags = (c: Command) => new Map(c.options.map((o) => [o.long ?? o.short, o]));

describe("chat and run options", () => {
  it("every flag chat and run both take is the shared declaration (same flags, same choices)", () => {
    const chat = flags(command("chat"));
    const run = flags(command("run"));
    const both = [...chat.keys()].filter((k) => run.has(k));
    expect(both.sort()).toEqual(
      [
        "--allow-dangerous-workspace",
        "--approval",
        "--continue",
        "--dangerously-run-unconfined",
        "--goal",
        "--no-memory",
        "--no-network",
        "--permission-mode",
        "--scratch",
        "--thread",
        "--workspace",
      ].sort(),
    );
    for (const k of both) {
      expect(chat.get(k)!.flags, k).toBe(run.get(k)!.flags);
      expect(chat.get(k)!.argChoices, k).toEqual(run.get(k)!.argChoices);
    }
  });

  it("resume takes chat's session options (not --thread: the thread is its argument)", () => {
    const chat = [...flags(command("chat")).keys()].filter((k) => k !== "--thread" && k !== "--continue");
    expect([...flags(command("resume")).keys()].sort()).toEqual(chat.sort());
  });

  it("a shared option keeps each front end's own help where the meaning differs", () => {
    expect(sharedOption("approval", "run").description).toContain("headless");
    expect(sharedOption("approval", "chat").description).not.toContain("headless");
    expect(sharedOption("approval", "chat").argChoices).toEqual(["ask", "auto-edit", "plan", "yolo"]);
  });
});
