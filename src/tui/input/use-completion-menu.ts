// The completion menu's state for the keys hook: which menu the input is in, its rows (cached per query, so the
// spinner's redraws do not search again), the selected row, and a menu closed with esc staying closed until the
// text changes. Read at the moment a key arrives (refs), like the input itself.
import { useEffect, useRef, useState } from "react";
import type { CompletionSource } from "../completion-source.js";
import { type CompletionContext, type CompletionList, completionContext } from "./completion.js";
import type { InputBuffer } from "./input-buffer.js";

/** Rows asked of the source (the menu shows fewer and scrolls). */
const MENU_LIMIT = 50;

export interface OpenMenu {
  ctx: CompletionContext;
  list: CompletionList;
  selected: number;
}

export function useCompletionMenu(source: CompletionSource) {
  // Bumped when the rows may change without a keystroke (the path index finished listing).
  const [version, setVersion] = useState(0);
  const versionRef = useRef(0);
  useEffect(
    () =>
      source.onChange(() => {
        versionRef.current++;
        setVersion(versionRef.current);
      }),
    [source],
  );
  const cache = useRef<{ key: string; list: CompletionList } | undefined>(undefined);
  const selected = useRef<{ key: string; index: number }>({ key: "", index: 0 });
  /** The text the menu was closed at (esc, or a history recall): no menu until it changes. */
  const closedAt = useRef<string | undefined>(undefined);
  const [, redraw] = useState(0);

  const menuFor = (b: InputBuffer): OpenMenu | undefined => {
    const ctx = completionContext(b);
    if (!ctx || closedAt.current === b.text) return undefined;
    const key = `${ctx.kind}\0${ctx.query}\0${versionRef.current}`;
    if (cache.current?.key !== key) cache.current = { key, list: source.rows(ctx, MENU_LIMIT) };
    const list = cache.current.list;
    const rowKey = `${ctx.kind}\0${ctx.query}`;
    if (selected.current.key !== rowKey) selected.current = { key: rowKey, index: 0 };
    return { ctx, list, selected: Math.min(selected.current.index, Math.max(0, list.items.length - 1)) };
  };

  return {
    version,
    menuFor,
    /** Moves the selection by `step` (wrapping). */
    move(menu: OpenMenu, step: number): void {
      const n = menu.list.items.length;
      if (n === 0) return;
      selected.current = { ...selected.current, index: (menu.selected + step + n) % n };
      redraw((x) => x + 1);
    },
    close(text: string): void {
      closedAt.current = text;
      redraw((x) => x + 1);
    },
  };
}
