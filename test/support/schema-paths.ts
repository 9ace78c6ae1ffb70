// Leaf key paths of a zod schema (records walked through their values, written "*"): the one walk the tests that
// hold a table against the .deerflowrc schema share (trust classification, the configuration reference).
import type { z } from "zod";

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; valueType?: z.ZodType; options?: z.ZodType[] };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

export function leafPaths(schema: z.ZodType, prefix: string[] = []): string[] {
  const def = defOf(schema);
  if (def.type === "optional" || def.type === "nullable" || def.type === "default") return leafPaths(def.innerType!, prefix);
  if (def.type === "object") return Object.entries(def.shape!).flatMap(([k, v]) => leafPaths(v, [...prefix, k]));
  if (def.type === "record" && defOf(def.valueType!).type !== "string") return leafPaths(def.valueType!, [...prefix, "*"]);
  return [prefix.join(".")];
}
