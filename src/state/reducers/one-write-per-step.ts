// Invariant: a field guarded by this fails the step when one step writes it twice with different values (the seed's
// rule for `title` and `thread_data`: one writer per step, never a silent last-wins). Across steps the field's own
// reducer applies unchanged, and a second write of the SAME value in one step is allowed: langchain's middleware
// nodes hand back the whole state they were given merged with their update, so a declared field is re-written with
// its current value by every middleware that changes anything else. (Making the field a LastValue channel broke
// exactly there: a re-emitted field counts as a write, and a stale or defaulted one wiped the thread's paths.)
//
// How a step is told apart: LangGraph applies all of one step's writes to a channel in one synchronous
// `channel.update(values)`, calling the reducer as `this.operator(current, value)` for each, with the channel as
// `this`. The first write of a step is remembered per channel until the current microtask queue drains, which
// happens before the graph's next step can start (it awaits the step's tasks in between); a later write in the same
// update that differs is the conflict. Called as a plain function (no channel), the reducer is just `merge`.
import { DoubleWriteError } from "../errors.js";

const firstWriteOfStep = new WeakMap<object, { value: unknown }>();

export function oneWritePerStep<T, U>(field: string, merge: (existing: T, update: U) => T, isWrite: (update: U) => boolean, same: (a: U, b: U) => boolean) {
  return function reduce(this: unknown, existing: T, update: U): T {
    const merged = merge(existing, update);
    if (!isWrite(update) || typeof this !== "object" || this === null) return merged;
    const first = firstWriteOfStep.get(this);
    if (first === undefined) {
      firstWriteOfStep.set(this, { value: update });
      queueMicrotask(() => firstWriteOfStep.delete(this as object));
    } else if (!same(first.value as U, update)) {
      throw new DoubleWriteError(field, first.value, update);
    }
    return merged;
  };
}
