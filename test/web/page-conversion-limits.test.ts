// Pages the conversion libraries stall on can never hang deerflow (the fourteenth pass's W3): HTML and PDF convert in
// a worker thread that is terminated at its time limit or on the turn's abort, while the main thread keeps running.
// Driven in-process: the tool against the loopback page server, and the converter itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebFetchTool } from "../../src/tools/web-fetch.js";
import { PageCache } from "../../src/tools/web/page-cache.js";
import { convertInWorker } from "../../src/tools/web/page-converter.js";
import { HOSTILE_HTML, type WebPageServer, startWebPageServer } from "../support/web-pages.js";

let site: WebPageServer;
beforeAll(async () => {
  site = await startWebPageServer();
});
afterAll(() => site.close());

/** Generous: the machine is shared; a conversion on the main thread would take tens of seconds to minutes. */
const MARGIN_MS = 15_000;
const LIMIT_MS = 2_000;

type Invokable = { invoke: (input: unknown, config?: unknown) => Promise<unknown> };
const tool = () => createWebFetchTool({ allowLoopback: true, cache: new PageCache(), convertLimitMs: LIMIT_MS }) as unknown as Invokable;

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

describe("web_fetch: pages the parser nests thousands deep", () => {
  it.each([
    ["/hostile/self-closed-divs", "PAYLOAD-selfclosed"],
    ["/hostile/stray-end-tags", "PAYLOAD-stray"],
  ])("%s: its text at once, the first line saying it was not converted", async (path, payload) => {
    const { value, ms } = await timed(() => tool().invoke({ url: `${site.origin}${path}` }));
    const out = String(value);
    expect(out.split("\n")[0]).toContain("text/html, text from HTML (too large or too deeply nested to convert)");
    expect(out).toContain(payload);
    expect(ms).toBeLessThan(LIMIT_MS + MARGIN_MS);
  });
});

describe("web_fetch: a conversion past its time limit", () => {
  it("a page the libraries take tens of seconds over: stopped at the limit, its text returned, timers ran meanwhile", async () => {
    const path = "/hostile/many-links";
    // Ticks of a timer after the server sent the page: a conversion on the main thread would allow none until it ended.
    let ticksAfterServed = 0;
    const ticker = setInterval(() => {
      if (site.requests.some((r) => r.path === path)) ticksAfterServed++;
    }, 20);
    try {
      // A short limit: a quiet machine converts this page in about a second, a busy one in tens (the limit is the subject).
      const short = createWebFetchTool({ allowLoopback: true, cache: new PageCache(), convertLimitMs: 200 }) as unknown as Invokable;
      const { value, ms } = await timed(() => short.invoke({ url: `${site.origin}${path}` }));
      const out = String(value);
      expect(out.split("\n")[0]).toContain("text from HTML (not converted to Markdown: it took longer than 0.2 s)");
      expect(out).toContain("PAYLOAD-links");
      expect(ms).toBeLessThan(LIMIT_MS + MARGIN_MS);
      expect(ticksAfterServed).toBeGreaterThanOrEqual(3);
    } finally {
      clearInterval(ticker);
    }
  });

  it("a 32 KB PDF whose 200 pages share one content stream: one line saying it was not read", async () => {
    const { value: err, ms } = await timed(() =>
      tool()
        .invoke({ url: `${site.origin}/hostile/shared-stream.pdf` })
        .then(
          () => undefined,
          (e: Error) => e,
        ),
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toBe(`${site.origin}/hostile/shared-stream.pdf is a PDF whose text was not read: it took longer than 2 s.`);
    expect(ms).toBeLessThan(LIMIT_MS + MARGIN_MS);
  });
});

describe("the converter worker", () => {
  const selfClosed = HOSTILE_HTML["/hostile/self-closed-divs"];

  it("3 000 <div/> given straight to the worker: a timer fires while it converts; stopped at the limit; the next page converts", async () => {
    const events: string[] = [];
    const outcome = await convertInWorker({ kind: "html", html: selfClosed }, { limitMs: LIMIT_MS, onStarted: () => setTimeout(() => events.push("timer"), 50) });
    events.push("outcome");
    expect(outcome).toEqual({ stopped: "time", detail: "it took longer than 2 s" });
    expect(events).toEqual(["timer", "outcome"]);
    // The stopped worker is not reused: a fresh one converts an ordinary page.
    const next = await convertInWorker({ kind: "html", html: "<html><body><h1>Back</h1><p>Some <b>bold</b> text.</p></body></html>" });
    expect(next).toMatchObject({ page: { form: "Markdown from HTML" } });
    expect(JSON.stringify(next)).toContain("**bold**");
  });

  it("a page converting next to a stalled one (another chat or ACP session) is not held up by it", async () => {
    const ac = new AbortController();
    const order: string[] = [];
    const stalled = convertInWorker({ kind: "html", html: selfClosed }, { limitMs: 120_000, signal: ac.signal }).then((o) => {
      order.push("stalled");
      return o;
    });
    const ordinary = await convertInWorker({ kind: "html", html: "<html><body><p>PAYLOAD-next <i>door</i></p></body></html>" });
    order.push("ordinary");
    expect(JSON.stringify(ordinary)).toContain("PAYLOAD-next _door_");
    ac.abort();
    expect(await stalled).toMatchObject({ stopped: "cancelled" });
    expect(order).toEqual(["ordinary", "stalled"]);
  });

  it("at most two pages convert at once: a third waits until a worker is free", async () => {
    const ac = [new AbortController(), new AbortController(), new AbortController()];
    const events: string[] = [];
    let twoStarted!: () => void;
    const bothRunning = new Promise<void>((r) => {
      twoStarted = r;
    });
    const jobs = ac.map((c, i) =>
      convertInWorker(
        { kind: "html", html: selfClosed },
        {
          limitMs: 120_000,
          signal: c.signal,
          onStarted: () => {
            events.push(`started ${i}`);
            if (events.length === 2) twoStarted();
          },
        },
      ).then((o) => {
        events.push(`ended ${i}`);
        return o;
      }),
    );
    await bothRunning;
    // A negative, so a pause: a third worker would load its libraries and start well within it.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(events).toEqual(["started 0", "started 1"]);
    ac[0]!.abort();
    await jobs[0];
    await new Promise<void>((r) => {
      const check = setInterval(() => events.includes("started 2") && (clearInterval(check), r()), 20);
    });
    for (const c of ac) c.abort();
    expect((await Promise.all(jobs)).map((o) => "stopped" in o && o.stopped)).toEqual(["cancelled", "cancelled", "cancelled"]);
    expect(events.slice(0, 4)).toEqual(["started 0", "started 1", "ended 0", "started 2"]);
  });

  it("an abort mid-conversion returns at once, long before the limit", async () => {
    const ac = new AbortController();
    let abortedAt = 0;
    const outcome = await convertInWorker(
      { kind: "html", html: selfClosed },
      {
        limitMs: 120_000,
        signal: ac.signal,
        onStarted: () => {
          abortedAt = performance.now();
          ac.abort();
        },
      },
    );
    expect(outcome).toEqual({ stopped: "cancelled", detail: "the turn was cancelled" });
    expect(performance.now() - abortedAt).toBeLessThan(MARGIN_MS);
  });
});
