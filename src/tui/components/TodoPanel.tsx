// The plan's todo list. Collapsed it shows a small window around the item being worked on (one line per item),
// so a 30-item plan does not push the input off screen; expanded (Ctrl+T, or in the transcript) it shows all.
import { Box, Text } from "ink";
import type { TodoView } from "../state/types.js";
import { marks, theme } from "../theme.js";

export interface TodoPanelProps {
  todos: TodoView[];
  expanded: boolean;
  /** Items shown when collapsed (default 5). */
  maxCollapsed?: number;
  /** Show the "ctrl+t to expand/collapse" hint (default true; off for the frozen transcript copy). */
  hint?: boolean;
  /** One line only: while a prompt waits, or once the list is finished (ctrl+t opens it). */
  folded?: boolean;
}

/** The [start, end) window of `max` items around the in-progress item (else the first not completed). */
export function todoWindow(todos: TodoView[], max: number): [number, number] {
  const n = todos.length;
  const size = Math.max(1, Math.min(max, n));
  let focus = todos.findIndex((t) => t.status === "in_progress");
  if (focus < 0) focus = todos.findIndex((t) => t.status !== "completed");
  if (focus < 0) focus = n - 1;
  // One item of context before the focus, the rest after: what comes next matters more than what is done.
  const start = Math.min(Math.max(0, focus - 1), n - size);
  return [start, start + size];
}

function TodoLine({ todo, wrap }: { todo: TodoView; wrap: boolean }) {
  const mode = wrap ? "wrap" : "truncate-end";
  if (todo.status === "in_progress")
    return (
      <Text wrap={mode} bold color={theme.active}>
        {marks.inProgress} {todo.content}
      </Text>
    );
  if (todo.status === "completed")
    return (
      <Text wrap={mode} dimColor>
        <Text color={theme.ok}>{marks.completed}</Text> <Text strikethrough>{todo.content}</Text>
      </Text>
    );
  return (
    <Text wrap={mode}>
      {marks.pending} {todo.content}
    </Text>
  );
}

export function TodoPanel({ todos, expanded, maxCollapsed = 5, hint = true, folded = false }: TodoPanelProps) {
  if (todos.length === 0) return null;
  const done = todos.filter((t) => t.status === "completed").length;
  if (folded) {
    const current = todos.find((t) => t.status === "in_progress") ?? todos.find((t) => t.status !== "completed");
    return (
      <Text wrap="truncate-end">
        <Text bold>Todos</Text> {done}/{todos.length} done
        {current ? (
          <Text color={theme.active}>
            {" "}
            · {current.status === "in_progress" ? marks.inProgress : marks.pending} {current.content}
          </Text>
        ) : null}
        {hint && !current ? <Text dimColor> · ctrl+t opens the list</Text> : null}
      </Text>
    );
  }
  const foldable = todos.length > maxCollapsed;
  const [start, end] = expanded || !foldable ? [0, todos.length] : todoWindow(todos, maxCollapsed);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>Todos</Text> {done}/{todos.length} done
        {foldable && hint ? <Text dimColor> · ctrl+t to {expanded ? "collapse" : "expand"}</Text> : null}
      </Text>
      <Box flexDirection="column" paddingLeft={2}>
        {start > 0 ? <Text dimColor>… {start} more</Text> : null}
        {todos.slice(start, end).map((todo, i) => (
          <TodoLine key={start + i} todo={todo} wrap={expanded} />
        ))}
        {end < todos.length ? <Text dimColor>… {todos.length - end} more</Text> : null}
      </Box>
    </Box>
  );
}
