// The chat screen. The committed transcript lives in <Static> (written once, never redrawn); under it a small live
// region: the streaming answer's tail, running tool calls, subagents, the spinner, todos, a question or approval,
// the input and the status line. The live region is kept shorter than the terminal, because Ink clears the whole
// screen when it is not — that is the flicker users hate.
import { Box, Static, useApp, useStdout } from "ink";
import { useEffect, useState, useSyncExternalStore } from "react";
import { ApprovalPrompt } from "./components/ApprovalPrompt.js";
import { approvalLayout } from "./components/approval-layout.js";
import { ClarificationPrompt } from "./components/ClarificationPrompt.js";
import { DelegationsPanel } from "./components/DelegationsPanel.js";
import { InputBox } from "./components/InputBox.js";
import { LiveAnswer } from "./components/LiveAnswer.js";
import { ModelPicker } from "./components/ModelPicker.js";
import { CompletionMenu, completionMenuRows } from "./components/CompletionMenu.js";
import { QueuedMessages, queuedRows } from "./components/QueuedMessages.js";
import { TrustPrompt } from "./components/TrustPrompt.js";
import { Spinner } from "./components/Spinner.js";
import { StatusLine } from "./components/StatusLine.js";
import { loadingText } from "./format.js";
import { TodoPanel } from "./components/TodoPanel.js";
import { ToolCard } from "./components/ToolCard.js";
import { TranscriptItemView } from "./components/TranscriptItemView.js";
import { splitLines, wrapLine } from "./format.js";
import type { ChatController } from "./controller.js";
import type { ChatStore } from "./store.js";
import { useChatKeys } from "./use-chat-keys.js";
import { useRedrawOnResize } from "./use-redraw-on-resize.js";
/** How long "Press Ctrl+C again to exit" stays armed. */
const EXIT_ARM_MS = 2000;

/** A clock for spinners and elapsed times that ticks only while something is live. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 120);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

export interface AppProps {
  store: ChatStore;
  controller: ChatController;
  /** Receives Ink's exit so the controller can leave. */
  exitRef: { current?: (error?: Error) => void };
}

export function App({ store, controller, exitRef }: AppProps) {
  const state = useSyncExternalStore(store.subscribe, store.get);
  const { exit } = useApp();
  const { stdout } = useStdout();
  const { buf, choice, reason, menu } = useChatKeys(store, controller);
  const columns = stdout.columns || 80;
  const rows = stdout.rows || 24;
  const approval = state.approvals[0];
  const clarification = state.clarification;
  const options = clarification?.options ?? [];
  const live = state.run !== null || state.delegations.length > 0;
  const now = useNow(live);
  const redraws = useRedrawOnResize();

  // Leaving with an error (no model, a refused start): the live region goes first, so "Starting…" and the status
  // line do not stay on screen above the one-line error the CLI prints.
  const [failed, setFailed] = useState<Error | undefined>(undefined);
  useEffect(() => {
    exitRef.current = (error?: Error) => (error ? setFailed(error) : exit());
  }, [exit, exitRef]);
  useEffect(() => {
    if (failed) exit(failed);
  }, [failed, exit]);

  useEffect(() => {
    if (!state.exitArmed) return;
    const t = setTimeout(() => store.dispatch({ type: "ui.exit.arm", armed: false }), EXIT_ARM_MS);
    return () => clearTimeout(t);
  }, [state.exitArmed, store]);

  // The live region must stay shorter than the terminal (Ink clears the whole screen on every frame otherwise):
  // count the rows of everything but the streaming answer, as wrapped at this width; the answer's tail gets the rest.
  const rowsOf = (text: string, width: number) => splitLines(text).reduce((n, l) => n + wrapLine(l, Math.max(1, width)).length, 0);
  const inputRows = Math.max(3, Math.floor(rows / 4));
  const todosFit = Math.max(3, Math.floor(rows / 3));
  // While a prompt waits, pinned panels fold to one line and the spinner and running tool cards step aside (the
  // prompt says what the run waits for): the rows go to what is being approved.
  const prompting = approval !== undefined || clarification != null || state.trustPrompt != null || state.modelPicker != null;
  // A finished list folds to its one summary line once the run ends; ctrl+t opens it.
  const todosFolded = prompting || (state.run === null && !state.todosExpanded && state.todos.length > 0 && state.todos.every((t) => t.status === "completed"));
  const todoRows = state.todos.length === 0 ? 0 : todosFolded ? 1 : Math.min(state.todosExpanded ? state.todos.length : 5, todosFit) + 3;
  const delegationRows = state.delegations.length === 0 ? 0 : prompting ? 1 : state.delegations.length + 2;
  const visibleTools = approval ? [] : state.tools.filter((t) => !state.delegations.some((d) => d.id === t.id));
  const showSpinner = state.run !== null && !approval;
  const pickerRows = state.modelPicker ? Math.min(state.modelPicker.length, Math.max(3, rows - 12)) : 0;
  const trustRows = state.trustPrompt ? Math.min(state.trustPrompt.wants.length, Math.max(3, rows - 14)) : 0;
  const menuRows = Math.max(2, Math.min(8, Math.floor(rows / 3)));
  const others =
    3 +
    completionMenuRows(menu?.list, menuRows) +
    Math.min(inputRows, rowsOf(buf.text || " ", columns - 2)) +
    (state.exitArmed || state.hint ? 1 : 0) +
    visibleTools.length +
    delegationRows +
    (showSpinner ? 1 : 0) +
    queuedRows(state.queued.length) +
    todoRows;
  const approvalFit = approval ? approvalLayout(approval, rows - 1 - others - (state.streaming.trim() ? 1 : 0), columns, reason) : undefined;
  const promptRows = state.trustPrompt
    ? trustRows + 6
    : state.modelPicker
      ? pickerRows + 4
      : approvalFit
        ? approvalFit.rows
        : clarification
          ? 5 + rowsOf(clarification.question, columns) + rowsOf(clarification.context ?? "", columns) + options.reduce((n, o) => n + rowsOf(o, columns - 5), 1)
          : 0;
  const reserved = others + promptRows;
  const answerLines = Math.max(1, rows - reserved - 1);

  const transcript = (
    <Static key={redraws} items={state.items}>
      {(item) => <TranscriptItemView key={item.id} item={item} width={columns} />}
    </Static>
  );
  if (failed) return <Box flexDirection="column">{transcript}</Box>;
  return (
    <Box flexDirection="column">
      {transcript}
      <LiveAnswer text={state.streaming} maxLines={answerLines} width={columns} />
      {/* A running `task` call is shown by its row in the subagents panel. */}
      {visibleTools.map((t) => (
        <ToolCard key={t.id} tool={t} now={now} />
      ))}
      <DelegationsPanel delegations={state.delegations} now={now} folded={prompting} />
      {showSpinner && state.run ? <Spinner run={state.run} now={now} /> : null}
      <QueuedMessages queued={state.queued} />
      {/* Expanded but taller than a third of the screen: a bigger window instead (/todos prints the whole list). */}
      <TodoPanel
        todos={state.todos}
        folded={todosFolded}
        expanded={state.todosExpanded && state.todos.length <= todosFit}
        maxCollapsed={state.todosExpanded && state.todos.length > todosFit ? todosFit : 5}
      />
      {state.modelPicker ? <ModelPicker options={state.modelPicker} selected={choice} maxRows={pickerRows} switching={state.modelPickerSwitch} /> : null}
      {state.trustPrompt ? <TrustPrompt prompt={state.trustPrompt} selected={choice} maxRows={trustRows} /> : null}
      {approval ? <ApprovalPrompt request={approval} selected={choice} queued={state.approvals.length - 1} reason={reason} layout={approvalFit} width={columns} /> : null}
      {!approval && clarification ? <ClarificationPrompt clarification={clarification} selected={buf.text ? options.length : choice} typing={buf.text !== ""} /> : null}
      <InputBox
        value={buf.text}
        cursor={buf.cursor}
        disabled={approval !== undefined}
        placeholder={clarification ? "Type your answer…" : state.ready ? "Ask anything · /help · !cmd · @file" : loadingText(state.status.resuming)}
        hint={state.exitArmed ? "Press Ctrl+C again to exit" : state.hint}
        maxRows={inputRows}
        width={columns}
      />
      {menu ? <CompletionMenu list={menu.list} selected={menu.selected} maxRows={menuRows} /> : null}
      <StatusLine status={state.status} ready={state.ready} width={columns} />
    </Box>
  );
}
