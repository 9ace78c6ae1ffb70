// The chat screen. The committed transcript lives in <Static> (written once, never redrawn); under it a small live
// region: the streaming answer's tail, running tool calls, subagents, the spinner, todos, a question or approval,
// the input and the status line. The live region is kept shorter than the terminal, because Ink clears the whole
// screen when it is not — that is the flicker users hate.
import { Box, Static, useApp, useStdout } from "ink";
import { useEffect, useState, useSyncExternalStore } from "react";
import { ApprovalPrompt } from "./components/ApprovalPrompt.js";
import { ClarificationPrompt } from "./components/ClarificationPrompt.js";
import { DelegationsPanel } from "./components/DelegationsPanel.js";
import { InputBox } from "./components/InputBox.js";
import { LiveAnswer } from "./components/LiveAnswer.js";
import { Spinner } from "./components/Spinner.js";
import { StatusLine } from "./components/StatusLine.js";
import { TodoPanel } from "./components/TodoPanel.js";
import { ToolCard } from "./components/ToolCard.js";
import { TranscriptItemView } from "./components/TranscriptItemView.js";
import type { ChatController } from "./controller.js";
import type { ChatStore } from "./store.js";
import { useChatKeys } from "./use-chat-keys.js";
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
  const { buf, choice } = useChatKeys(store, controller);
  const columns = stdout.columns || 80;
  const rows = stdout.rows || 24;
  const approval = state.approvals[0];
  const clarification = state.clarification;
  const options = clarification?.options ?? [];
  const live = state.run !== null || state.delegations.length > 0;
  const now = useNow(live);

  useEffect(() => {
    exitRef.current = (error?: Error) => exit(error);
  }, [exit, exitRef]);

  useEffect(() => {
    if (!state.exitArmed) return;
    const t = setTimeout(() => store.dispatch({ type: "ui.exit.arm", armed: false }), EXIT_ARM_MS);
    return () => clearTimeout(t);
  }, [state.exitArmed, store]);

  // Everything but the streaming answer, roughly, so the answer's tail gets the rest of the screen.
  const todoLines = state.todos.length === 0 ? 0 : (state.todosExpanded ? state.todos.length : Math.min(5, state.todos.length)) + 3;
  const promptLines = approval ? 9 + Math.ceil(approval.command.length / Math.max(20, columns - 6)) : clarification ? 6 + options.length + Math.ceil(clarification.question.length / columns) : 0;
  const reserved = 6 + buf.text.split("\n").length + state.tools.length + (state.delegations.length ? state.delegations.length + 2 : 0) + todoLines + promptLines;
  const answerLines = Math.max(3, rows - reserved);

  return (
    <Box flexDirection="column">
      <Static items={state.items}>{(item) => <TranscriptItemView key={item.id} item={item} width={columns} />}</Static>
      <LiveAnswer text={state.streaming} maxLines={answerLines} width={columns} />
      {state.tools
        // A running `task` call is shown by its row in the subagents panel.
        .filter((t) => !state.delegations.some((d) => d.id === t.id))
        .map((t) => (
          <ToolCard key={t.id} tool={t} now={now} />
        ))}
      <DelegationsPanel delegations={state.delegations} now={now} />
      {state.run ? <Spinner run={state.run} now={now} /> : null}
      <TodoPanel todos={state.todos} expanded={state.todosExpanded} />
      {approval ? <ApprovalPrompt request={approval} selected={choice} queued={state.approvals.length - 1} /> : null}
      {!approval && clarification ? <ClarificationPrompt clarification={clarification} selected={buf.text ? options.length : choice} typing={buf.text !== ""} /> : null}
      <InputBox
        value={buf.text}
        cursor={buf.cursor}
        disabled={approval !== undefined}
        placeholder={clarification ? "Type your answer…" : state.ready ? "Ask anything · /help · !cmd · @file" : "Starting…"}
        hint={state.exitArmed ? "Press Ctrl+C again to exit" : undefined}
      />
      <StatusLine status={state.status} ready={state.ready} />
    </Box>
  );
}
