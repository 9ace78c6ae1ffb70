// Throwaway memory stores for in-process tests: each test's homes and stores are closed and removed after it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { MemoryStore } from "../../src/memory/store.js";
import { endpointIdentity } from "../../src/config/model-endpoint.js";

/** The endpoint a sandbox's runs talk to (test/support/cli.ts: test-model at the loopback server, with its test key). */
export const sandboxEndpoint = (modelUrl: string) => endpointIdentity({ model: "test-model", baseUrl: modelUrl, apiKey: "sk-test-key-123456" });

export function useMemoryStores(prefix: string): { home: () => string; open: (home: string) => MemoryStore } {
  const dirs: string[] = [];
  const stores: MemoryStore[] = [];
  afterEach(() => {
    stores.splice(0).forEach((s) => s.close());
    dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
  });
  return {
    home() {
      const d = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(d);
      return d;
    },
    open(h: string) {
      const s = new MemoryStore(h);
      stores.push(s);
      return s;
    },
  };
}
