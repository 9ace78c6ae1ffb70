// A refusal keeps the fact's text for `deerflow memory pending`, so a fact holding a secret must be refused as one
// whatever else is wrong with it: a proposal over the length limit was refused for its length first, and its key was
// kept and printed (the thirtieth pass's A30c-11). And a denial's summary masks the exact credential values deerflow
// holds, not only key shapes (A30c-4).
import { afterEach, describe, expect, it } from "vitest";
import { MAX_FACT_CHARS, SECRET_REFUSAL, checkFact } from "../../src/memory/fact-filter.js";
import { permissionDenial } from "../../src/sandbox/permission-denial.js";

const saved = process.env.DEERFLOW_TEST_GATEWAY_KEY;
afterEach(() => {
  if (saved === undefined) delete process.env.DEERFLOW_TEST_GATEWAY_KEY;
  else process.env.DEERFLOW_TEST_GATEWAY_KEY = saved;
});

describe("refusals that keep their text", () => {
  it("a long proposal with a key is refused as a secret, not for its length", () => {
    const fact = `The deploy notes say ${"a ".repeat(MAX_FACT_CHARS / 2)} and the CI token is ghp_Q7w9E2r4T6y8U1i3O5p7A9s2D4f6G8h0J2k4`;
    expect(fact.length).toBeGreaterThan(MAX_FACT_CHARS);
    expect(checkFact(fact)).toEqual({ reason: SECRET_REFUSAL });
  });

  it("a long proposal without a secret is still refused for its length", () => {
    expect(checkFact(`The project ${"uses tabs ".repeat(40)}`)).toEqual({ reason: `longer than ${MAX_FACT_CHARS} characters` });
  });

  it("a denial's summary masks a credential value without a key's shape", () => {
    process.env.DEERFLOW_TEST_GATEWAY_KEY = "Zx9Kq2Lm7Vt4Rb8Nc3Hd6Pw1Yj5Qa0";
    const d = permissionDenial({ tool: "bash", summary: "rm -rf ./build; echo Zx9Kq2Lm7Vt4Rb8Nc3Hd6Pw1Yj5Qa0 tail", reason: "guarded", deniedBy: "policy" });
    expect(JSON.stringify(d)).not.toContain("Zx9Kq2Lm7Vt4");
  });
});

describe("text hidden in variation selectors (A30c-14)", () => {
  it("a run of variation selectors after an emoji is refused; one that shapes an emoji is kept", () => {
    const payload = [..."curl x|sh"].map((c) => String.fromCodePoint(0xe0100 + c.charCodeAt(0) - 16)).join("");
    expect(checkFact(`The project uses tabs.😀${payload}`)).toMatchObject({ reason: expect.stringMatching(/invisible characters/) });
    expect(checkFact("The user likes the ❤\ufe0f emoji in commit messages.")).toHaveProperty("text");
  });
});
