// The chat screen. The committed transcript lives in <Static> (written once, never redrawn); under it a small live
// region: the streaming answer's tail, running tool calls, subagents, the spinner, todos, a question or approval,
// the input and the status line. The live region is kept shorter than the terminal, because Ink clears the whole
// screen when it is not — that is the flicker users hate.
import { Box, Static, useApp, useInput, useStdout } from "ink";
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
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
import { EMPTY_INPUT, type InputBuffer, deleteBack, deleteWordBack, inputOf, insert, killToLineStart, lineEnd, lineStart, moveLeft, moveRight } from "./input/input-buffer.js";
import { InputHistory } from "./input/input-history.js";
import { actionFor } from "./keys/keybindings.js";
import type { ApprovalDecision } from "./state/types.js";
import type { ChatStore } from "./store.js";

const APPROVAL_CHOICES: readonly ApprovalDecision[] = ["allow_once", "allow_always", "deny"];
const APPROVAL_LETTERS: Record<string, ApprovalDecision> = { y: "allow_once", a: "allow_always", n: "deny" };
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
  const [buf, setBuf] = useState<InputBuffer>(EMPTY_INPUT);
  const [choice, setChoice] = useState(0);
  const history = useRef(new InputHistory());
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

  // A new question or approval starts at its first option.
  useEffect(() => setChoice(0), [approval?.id, clarification]);

  useEffect(() => {
    if (!state.exitArmed) return;
    const t = setTimeout(() => store.dispatch({ type: "ui.exit.arm", armed: false }), EXIT_ARM_MS);
    return () => clearTimeout(t);
  }, [state.exitArmed, store]);

  const send = useCallback(
    (text: string) => {
      if (controller.submit(text)) {
        history.current.push(text);
        setBuf(EMPTY_INPUT);
      }
    },
    [controller],
  );

  const submitBuffer = (b: InputBuffer) => {
    // `\` + Enter continues the message on a new line.
    if (b.text.endsWith("\\") && b.cursor === b.text.length) setBuf(insert(deleteBack(b), "\n"));
    else if (!controller.submit(b.text)) setBuf(b);
    else {
      history.current.push(b.text);
      setBuf(EMPTY_INPUT);
    }
  };

  useInput((input, key) => {
    const action = actionFor(input, key);
    if (action === "interrupt") {
      if (buf.text) setBuf(EMPTY_INPUT);
      else if (state.exitArmed) void controller.exit();
      else store.dispatch({ type: "ui.exit.arm", armed: true });
      return;
    }
    if (approval) {
      const pick = (d: ApprovalDecision) => controller.answerApproval(approval.id, d);
      if (/^[1-3]$/.test(input)) pick(APPROVAL_CHOICES[Number(input) - 1]!);
      else if (APPROVAL_LETTERS[input.toLowerCase()]) pick(APPROVAL_LETTERS[input.toLowerCase()]!);
      else if (action === "historyPrev") setChoice((c) => (c + 2) % 3);
      else if (action === "historyNext") setChoice((c) => (c + 1) % 3);
      else if (action === "submit") pick(APPROVAL_CHOICES[choice]!);
      else if (action === "cancel") pick("deny");
      return;
    }
    const picking = options.length > 0 && buf.text === "";
    switch (action) {
      case "exit":
        if (!buf.text) void controller.exit();
        return;
      case "cancel":
        controller.cancel();
        return;
      case "submit":
        if (picking) {
          if (choice < options.length) send(options[choice]!);
          return;
        }
        submitBuffer(buf);
        return;
      case "newline":
        setBuf(insert(buf, "\n"));
        return;
      case "historyPrev": {
        if (picking) return setChoice((c) => (c + options.length) % (options.length + 1));
        const h = history.current.prev(buf.text);
        if (h !== undefined) setBuf(inputOf(h));
        return;
      }
      case "historyNext": {
        if (picking) return setChoice((c) => (c + 1) % (options.length + 1));
        const h = history.current.next();
        if (h !== undefined) setBuf(inputOf(h));
        return;
      }
      case "toggleTodos":
        store.dispatch({ type: "ui.todos.toggle" });
        return;
      case "cycleApproval":
        controller.cycleApproval();
        return;
      case "expandTool":
        store.dispatch({ type: "ui.tool.expand" });
        return;
      case "cursorLeft":
        return setBuf(moveLeft(buf));
      case "cursorRight":
        return setBuf(moveRight(buf));
      case "lineStart":
        return setBuf(lineStart(buf));
      case "lineEnd":
        return setBuf(lineEnd(buf));
      case "deleteBack":
        return setBuf(deleteBack(buf));
      case "deleteWord":
        return setBuf(deleteWordBack(buf));
      case "killLine":
        return setBuf(killToLineStart(buf));
    }
    if (!input || key.ctrl || key.meta || key.tab) return;
    if (picking && /^[1-9]$/.test(input) && Number(input) <= options.length) {
      send(options[Number(input) - 1]!);
      return;
    }
    // Text and Enter in one chunk (typed faster than the terminal reads: automation, tmux send-keys) is a line
    // and its Enter; a chunk with several lines is a paste, kept as text.
    if (input.length > 1 && input.endsWith("\r") && !/[\r\n]/.test(input.slice(0, -1))) return submitBuffer(insert(buf, input.slice(0, -1)));
    setBuf(insert(buf, input));
  });

  // Everything but the streaming answer, roughly, so the answer's tail gets the rest of the screen.
  const todoLines = state.todos.length === 0 ? 0 : (state.todosExpanded ? state.todos.length : Math.min(5, state.todos.length)) + 3;
  const promptLines = approval ? 9 + Math.ceil(approval.command.length / Math.max(20, columns - 6)) : clarification ? 6 + options.length + Math.ceil(clarification.question.length / columns) : 0;
  const reserved = 6 + buf.text.split("\n").length + state.tools.length + (state.delegations.length ? state.delegations.length + 2 : 0) + todoLines + promptLines;
  const answerLines = Math.max(3, rows - reserved);

  return (
    <Box flexDirection="column">
      <Static items={state.items}>{(item) => <TranscriptItemView key={item.id} item={item} width={columns} />}</Static>
      <LiveAnswer text={state.streaming} maxLines={answerLines} width={columns} />
      {state.tools.map((t) => (
        <ToolCard key={t.id} tool={t} now={now} />
      ))}
      <DelegationsPanel delegations={state.delegations} now={now} />
      {state.run ? <Spinner run={state.run} now={now} /> : null}
      <TodoPanel todos={state.todos} expanded={state.todosExpanded} />
      {approval ? <ApprovalPrompt request={approval} selected={choice} queued={state.approvals.length - 1} /> : null}
      {!approval && clarification ? <ClarificationPrompt clarification={clarification} selected={choice} typing={buf.text !== ""} /> : null}
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
