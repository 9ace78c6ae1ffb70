// Pages fetched in this session (this process: a chat, or one `deerflow run`), by the URL asked for, for 15 minutes
// (as Claude Code): the model re-reading a page costs no request and gets the same text. Bounded by count so a long
// session does not grow without end.
import type { PageText } from "./page-content.js";

export const PAGE_CACHE_TTL_MS = 15 * 60 * 1000;
const MAX_ENTRIES = 100;

export interface CachedPage {
  url: string;
  status: number;
  contentType: string;
  bytes: number;
  truncated: boolean;
  redirects: string[];
  page: PageText;
  fetchedAt: number;
}

export class PageCache {
  private readonly entries = new Map<string, CachedPage>();

  constructor(private readonly now: () => number = Date.now) {}

  get(url: string): CachedPage | undefined {
    const hit = this.entries.get(url);
    if (hit && this.now() - hit.fetchedAt < PAGE_CACHE_TTL_MS) return hit;
    this.entries.delete(url);
    return undefined;
  }

  set(url: string, entry: Omit<CachedPage, "fetchedAt">): CachedPage {
    const cached = { ...entry, fetchedAt: this.now() };
    this.entries.delete(url);
    this.entries.set(url, cached);
    // Oldest first in a Map's order: drop from the front.
    while (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    return cached;
  }

  /** Milliseconds since `entry` was fetched. */
  age(entry: CachedPage): number {
    return this.now() - entry.fetchedAt;
  }
}

/** The session's cache (one per process). */
export const sessionPageCache = new PageCache();
