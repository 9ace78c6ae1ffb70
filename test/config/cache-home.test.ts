// Where the compiled code is kept (src/config/cache-home.ts): the user's cache directory, whatever the data home.
import { describe, expect, it } from "vitest";
import { cacheHomeOf } from "../../src/config/cache-home.js";

describe("cache directory", () => {
  it("DEERFLOW_CACHE_DIR, else $XDG_CACHE_HOME/deerflow, else ~/.cache/deerflow; never the data home", () => {
    const home = { HOME: "/home/u", DEERFLOW_HOME: "/data/df" };
    expect(cacheHomeOf(home)).toBe("/home/u/.cache/deerflow");
    expect(cacheHomeOf({ ...home, XDG_CACHE_HOME: "/xdg" })).toBe("/xdg/deerflow");
    expect(cacheHomeOf({ ...home, XDG_CACHE_HOME: "/xdg", DEERFLOW_CACHE_DIR: "/mine" })).toBe("/mine");
    // Relative ones are ignored: a relative XDG_CACHE_HOME is invalid (XDG spec), and a relative DEERFLOW_CACHE_DIR
    // would put the signed cache in the folder deerflow starts in, where a repository's scripts write.
    expect(cacheHomeOf({ ...home, DEERFLOW_CACHE_DIR: "c" })).toBe("/home/u/.cache/deerflow");
    expect(cacheHomeOf({ ...home, XDG_CACHE_HOME: "rel" })).toBe("/home/u/.cache/deerflow");
    // Empty counts as unset.
    expect(cacheHomeOf({ ...home, DEERFLOW_CACHE_DIR: " ", XDG_CACHE_HOME: "" })).toBe("/home/u/.cache/deerflow");
  });
});
