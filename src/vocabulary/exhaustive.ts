// A switch over a union names every member: `unhandled(x, fallback)` after the cases only compiles when `x` is
// `never` there, so a new event, action or item kind fails the typecheck until each switch decides what it means.
// At run time (a value from a newer peer) it changes nothing: it returns `fallback`.

/** The end of an exhaustive switch: compile-time proof every case is handled; at run time, `fallback`. */
export function unhandled<T>(_value: never, fallback: T): T {
  return fallback;
}
