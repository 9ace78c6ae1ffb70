import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DELEGATION_STATUSES,
  DELEGATIONS_MAX_ENTRIES,
  SKILL_CONTEXT_MAX_ENTRIES,
  SKILL_DESCRIPTION_MAX_CHARS,
  SandboxConflictError,
  TOOL_ARTIFACTS_MAX_ENTRIES,
  isTerminalDelegationStatus,
  mergeArtifacts,
  mergeDelegations,
  mergePromoted,
  mergeSandbox,
  mergeSkillContext,
  mergeToolArtifactProcessed,
  mergeToolArtifacts,
  mergeViewedImages,
  type ArtifactEntry,
  type DelegationEntry,
  type Promoted,
  type SandboxState,
  type SkillContextEntry,
  type ViewedImage,
  type ViewedImages,
} from "../../src/state/index.js";

// ---------------------------------------------------------------------------------------------
// arbitraries

const strList = fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", "g"), { maxLength: 12 });

const viewedImage: fc.Arbitrary<ViewedImage> = fc.record({
  mime_type: fc.constantFrom("image/png", "image/jpeg"),
  size: fc.nat(1000),
  actual_path: fc.constantFrom("/a.png", "/b.png"),
  sha256: fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 4, maxLength: 8 }),
});
const viewedImages: fc.Arbitrary<ViewedImages> = fc.dictionary(fc.constantFrom("p1", "p2", "p3", "p4"), viewedImage);

const promoted: fc.Arbitrary<Promoted> = fc
  .record({ catalog_hash: fc.constantFrom("h1", "h2"), names: strList, turn_id: fc.option(fc.constantFrom("t1", "t2"), { nil: undefined }) })
  .map((p) => (p.turn_id === undefined ? { catalog_hash: p.catalog_hash, names: p.names } : (p as Promoted)));

const delegation = (ids: string[]): fc.Arbitrary<DelegationEntry> =>
  fc
    .record({
      id: fc.constantFrom(...ids),
      run_id: fc.constantFrom("r1", "r2"),
      description: fc.constantFrom("x", "y"),
      subagent_type: fc.constantFrom("general-purpose", "bash"),
      status: fc.constantFrom(...DELEGATION_STATUSES),
      created_at: fc.constantFrom("t1", "t2", "t3"),
      result_brief: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
    })
    .map((d) => {
      const { result_brief, ...rest } = d;
      return result_brief === undefined ? rest : { ...rest, result_brief };
    });
const fewIds = ["a", "b", "c", "d"];
const manyIds = Array.from({ length: 200 }, (_, i) => `d${i}`);

const skill: fc.Arbitrary<SkillContextEntry> = fc.record({
  name: fc.constantFrom("s"),
  path: fc.integer({ min: 0, max: 30 }).map((i) => `/skills/${i}/SKILL.md`),
  description: fc.string({ maxLength: 800 }),
  loaded_at: fc.nat(100),
});

const artifact: fc.Arbitrary<ArtifactEntry> = fc.record({
  handle: fc.integer({ min: 0, max: 300 }).map((i) => `art_${i}`),
  tool_name: fc.constant("bash"),
  tool_call_id: fc.string({ maxLength: 6 }),
  call_index: fc.nat(3),
  artifact_type: fc.constantFrom("file", "url"),
  display_name: fc.string({ maxLength: 6 }),
  real_ref: fc.string({ maxLength: 10 }),
  created_at: fc.constant("2026-11-30T00:00:00.000Z"),
});

/** Fold a sequence of updates with a reducer, starting from `initial`. */
const fold = <S, U>(reducer: (s: S, u: U) => S, initial: S, updates: U[]) => updates.reduce(reducer, initial);

// ---------------------------------------------------------------------------------------------

describe("properties: artifacts / tool_artifact_processed (ordered union)", () => {
  for (const [name, reducer] of [
    ["artifacts", mergeArtifacts],
    ["tool_artifact_processed", mergeToolArtifactProcessed],
  ] as const) {
    it(`${name}: idempotent, f(f(e, u), u) = f(e, u)`, () => {
      fc.assert(
        fc.property(strList, strList, (e, u) => {
          const once = reducer(e, u);
          expect(reducer(once, u)).toEqual(once);
        }),
      );
    });
    it(`${name}: nothing is lost, no duplicates, first-seen order preserved`, () => {
      fc.assert(
        fc.property(fc.array(strList, { maxLength: 6 }), (updates) => {
          const out = fold(reducer, [] as string[], updates);
          const all = updates.flat();
          expect(new Set(out)).toEqual(new Set(all));
          expect(new Set(out).size).toBe(out.length);
          // first-seen order: the order in which items first appear across all writes
          expect(out).toEqual(all.filter((x, i) => all.indexOf(x) === i));
        }),
      );
    });
  }
});

describe("properties: viewed_images", () => {
  it("merging the same input twice is the same as once", () => {
    fc.assert(
      fc.property(viewedImages, viewedImages, (e, u) => {
        const once = mergeViewedImages(e, u);
        expect(mergeViewedImages(once, u)).toEqual(once);
      }),
    );
  });
  it("new wins per key and keys are never dropped except by {}", () => {
    fc.assert(
      fc.property(viewedImages, viewedImages, (e, u) => {
        const out = mergeViewedImages(e, u);
        if (Object.keys(u).length === 0) {
          expect(out).toEqual({});
          return;
        }
        for (const [k, v] of Object.entries(u)) expect(out[k]).toEqual(v);
        for (const k of Object.keys(e)) expect(out).toHaveProperty(k);
      }),
    );
  });
});

describe("properties: promoted", () => {
  it("same-scope union is idempotent: f(f(e, u), u) = f(e, u)", () => {
    fc.assert(
      fc.property(fc.option(promoted, { nil: null }), promoted, (e, u) => {
        const once = mergePromoted(e, u);
        expect(mergePromoted(once, u)).toEqual(once);
      }),
    );
  });
  it("names are always de-duplicated and the result carries the written hash", () => {
    fc.assert(
      fc.property(fc.option(promoted, { nil: null }), promoted, (e, u) => {
        const out = mergePromoted(e, u)!;
        expect(out.catalog_hash).toBe(u.catalog_hash);
        expect(new Set(out.names).size).toBe(out.names.length);
        for (const n of u.names) expect(out.names).toContain(n);
      }),
    );
  });
});

describe("properties: delegations", () => {
  it("upserting the same entry again changes nothing", () => {
    fc.assert(
      fc.property(fc.array(delegation(fewIds), { maxLength: 10 }), delegation(fewIds), (e, x) => {
        const existing = mergeDelegations([], e);
        const once = mergeDelegations(existing, [x]);
        expect(mergeDelegations(once, [x])).toEqual(once);
      }),
    );
  });
  it("terminal statuses never regress under any sequence of updates", () => {
    fc.assert(
      fc.property(fc.array(fc.array(delegation(fewIds), { maxLength: 4 }), { maxLength: 12 }), (updates) => {
        let state: DelegationEntry[] = [];
        for (const update of updates) {
          const next = mergeDelegations(state, update);
          for (const before of state) {
            const after = next.find((d) => d.id === before.id);
            if (after && isTerminalDelegationStatus(before.status)) {
              expect(after.status).toBe(before.status);
              expect(after.created_at).toBe(before.created_at);
              expect(after.run_id).toBe(before.run_id);
            }
          }
          state = next;
        }
      }),
    );
  });
  it("ids are unique and the ledger never exceeds 50 entries, for any input size", () => {
    fc.assert(
      fc.property(fc.array(fc.array(delegation(manyIds), { maxLength: 120 }), { maxLength: 4 }), (updates) => {
        const out = fold(mergeDelegations, [] as DelegationEntry[], updates);
        expect(out.length).toBeLessThanOrEqual(DELEGATIONS_MAX_ENTRIES);
        expect(new Set(out.map((d) => d.id)).size).toBe(out.length);
      }),
    );
  });
});

describe("properties: skill_context", () => {
  it("at most 8 entries, unique paths, descriptions ≤ 500, the last read skill is last", () => {
    fc.assert(
      fc.property(fc.array(fc.array(skill, { maxLength: 15 }), { maxLength: 5 }), (updates) => {
        const out = fold(mergeSkillContext, [] as SkillContextEntry[], updates);
        expect(out.length).toBeLessThanOrEqual(SKILL_CONTEXT_MAX_ENTRIES);
        expect(new Set(out.map((s) => s.path)).size).toBe(out.length);
        for (const s of out) expect(s.description.length).toBeLessThanOrEqual(SKILL_DESCRIPTION_MAX_CHARS);
        const last = updates.flat().at(-1);
        if (last) expect(out.at(-1)!.path).toBe(last.path);
      }),
    );
  });
});

describe("properties: tool_artifacts", () => {
  it("at most 100 entries, unique handles, the latest write of a kept handle wins", () => {
    fc.assert(
      fc.property(fc.array(fc.array(artifact, { maxLength: 150 }), { maxLength: 4 }), (updates) => {
        const out = fold(mergeToolArtifacts, [] as ArtifactEntry[], updates);
        expect(out.length).toBeLessThanOrEqual(TOOL_ARTIFACTS_MAX_ENTRIES);
        expect(new Set(out.map((a) => a.handle)).size).toBe(out.length);
        const all = updates.flat();
        for (const a of out) expect(a).toEqual(all.filter((x) => x.handle === a.handle).at(-1));
      }),
    );
  });
});

describe("properties: sandbox", () => {
  const write: fc.Arbitrary<SandboxState | null | undefined> = fc.oneof(fc.constant(null), fc.constant(undefined), fc.record({ sandbox_id: fc.constantFrom("sb1", "sb2", "sb3") }));
  it("never silently changes the id: a different id always throws, otherwise the id is kept", () => {
    fc.assert(
      fc.property(fc.array(write, { maxLength: 10 }), (writes) => {
        let state: SandboxState | null = null;
        for (const w of writes) {
          const before = state?.sandbox_id ?? null;
          const incoming = w?.sandbox_id ?? null;
          if (before !== null && incoming !== null && incoming !== before) {
            expect(() => mergeSandbox(state, w)).toThrow(SandboxConflictError);
            continue;
          }
          state = mergeSandbox(state, w);
          const after = state?.sandbox_id ?? null;
          if (before !== null) expect(after).toBe(before);
          else expect(after).toBe(incoming);
        }
      }),
    );
  });
});

describe("properties: re-writing the current value is a no-op, f(x, x) = x", () => {
  // langchain's createAgent (1.5.x, with any middleware that has a state schema) feeds the whole
  // current state back in as the input of every run, so each reducer must absorb its own value.
  it("for every list/dict/scoped reducer, on any reachable value", () => {
    fc.assert(
      fc.property(
        fc.array(strList, { maxLength: 4 }),
        fc.array(viewedImages, { maxLength: 3 }),
        fc.array(promoted, { maxLength: 4 }),
        fc.array(fc.array(delegation(manyIds.slice(0, 70)), { maxLength: 40 }), { maxLength: 3 }),
        fc.array(fc.array(skill, { maxLength: 12 }), { maxLength: 3 }),
        fc.array(fc.array(artifact, { maxLength: 120 }), { maxLength: 3 }),
        (lists, images, promos, delegs, skills, arts) => {
          const a = fold(mergeArtifacts, [] as string[], lists);
          expect(mergeArtifacts(a, a)).toEqual(a);
          expect(mergeToolArtifactProcessed(a, a)).toEqual(a);
          const v = fold(mergeViewedImages, {} as ViewedImages, images);
          expect(mergeViewedImages(v, v)).toEqual(v);
          const p = fold<Promoted | null, Promoted>(mergePromoted, null, promos);
          expect(mergePromoted(p, p)).toEqual(p);
          const d = fold(mergeDelegations, [] as DelegationEntry[], delegs);
          expect(mergeDelegations(d, d)).toEqual(d);
          const s = fold(mergeSkillContext, [] as SkillContextEntry[], skills);
          expect(mergeSkillContext(s, s)).toEqual(s);
          const t = fold(mergeToolArtifacts, [] as ArtifactEntry[], arts);
          expect(mergeToolArtifacts(t, t)).toEqual(t);
        },
      ),
    );
  });
  it("sandbox: writing the bound value again keeps it", () => {
    fc.assert(
      fc.property(fc.constantFrom("sb1", "sb2"), (id) => {
        const s = mergeSandbox(null, { sandbox_id: id });
        expect(mergeSandbox(s, s)).toEqual(s);
      }),
    );
  });
});
