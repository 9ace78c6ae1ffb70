// Waiting for an event that has no callback to await (a process appearing in /proc, a file filling, a run's row
// changing). The bound only turns a hang into a failure: it is generous because CI runs on 2 busy cores, where a
// spawn or a checkpoint can take seconds; ordering is proven by the events themselves, never by this bound.
export const WAIT_MS = 60_000;

/** Resolves once `pred` holds (polled every `every` ms); fails after `ms` naming what it waited for. */
export async function until(pred: () => boolean | Promise<boolean>, what = "a condition", ms = WAIT_MS, every = 25): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

/** Resolves to the first value `probe` returns that is not undefined. */
export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, what = "a value", ms = WAIT_MS, every = 100): Promise<T> {
  let got: T | undefined;
  await until(async () => (got = await probe()) !== undefined, what, ms, every);
  return got as T;
}
