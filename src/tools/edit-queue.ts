// One edit at a time per workspace. A model may send several edits of the same file in one turn (the instructions
// ask for independent calls together, and two str_replace calls on different lines of one file look independent);
// the tool node runs them concurrently, and each read-modify-write would otherwise start from the same version, so
// the later write silently dropped the earlier edit (found by `deerflow eval`, task fix-lint). Edits are quick, so
// one queue per workspace costs nothing and also covers one file reached by two spellings of its path.
const queues = new Map<string, Promise<unknown>>();

export function inEditQueue<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const result = previous.then(work, work);
  const tail = result.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return result;
}
