// The chat's keyboard: the input line, history, option pickers and the global keys, dispatched through the one
// keybinding registry. Keys arrive faster than React re-renders (fast typists, pastes split by the terminal, a
// busy machine), so the handler never reads render-time copies: the input and the selected option live in refs
// updated synchronously, and the chat state is read from the store at the moment the key arrives.
import { type Key, useInput } from "ink";
import { useCallback, useEffect, useRef, useState } from "react";
import type { ChatController } from "./controller.js";
import { EMPTY_INPUT, type InputBuffer, deleteBack, deleteWordBack, inputOf, insert, killToLineStart, lineEnd, lineStart, moveLeft, moveRight } from "./input/input-buffer.js";
import { InputHistory } from "./input/input-history.js";
import { actionFor } from "./keys/keybindings.js";
import type { ApprovalDecision } from "./state/types.js";
import type { ChatStore } from "./store.js";
import { type OpenMenu, useCompletionMenu } from "./input/use-completion-menu.js";
import { applyCompletion } from "./input/completion.js";

const APPROVAL_CHOICES: readonly ApprovalDecision[] = ["allow_once", "allow_always", "deny"];

export function useChatKeys(store: ChatStore, controller: ChatController): { buf: InputBuffer; choice: number; reason: InputBuffer | null; menu: OpenMenu | undefined } {
  const [buf, setBufState] = useState<InputBuffer>(EMPTY_INPUT);
  const [choice, setChoiceState] = useState(0);
  // Set once Deny was chosen on an approval: the reason being typed.
  const [reason, setReasonState] = useState<InputBuffer | null>(null);
  const bufRef = useRef(buf);
  const choiceRef = useRef(choice);
  const reasonRef = useRef(reason);
  const history = useRef(new InputHistory());
  const menus = useCompletionMenu(controller.completion);
  const setBuf = (b: InputBuffer) => {
    bufRef.current = b;
    setBufState(b);
  };
  const setChoice = (c: number) => {
    choiceRef.current = c;
    setChoiceState(c);
  };
  const setReason = (r: InputBuffer | null) => {
    reasonRef.current = r;
    setReasonState(r);
  };

  // A new question or approval starts at its first option.
  const approvalId = store.get().approvals[0]?.id;
  const clarification = store.get().clarification;
  const modelPicker = store.get().modelPicker;
  const trustPrompt = store.get().trustPrompt;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the dependencies are the prompts whose arrival resets the choice
  useEffect(() => setChoice(0), [approvalId, clarification, modelPicker, trustPrompt]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new approval starts without a typed reason
  useEffect(() => setReason(null), [approvalId]);

  const send = (text: string): void => {
    if (!controller.submit(text)) return;
    history.current.push(text);
    setBuf(EMPTY_INPUT);
  };

  const submitBuffer = (b: InputBuffer): void => {
    // `\` + Enter continues the message on a new line.
    if (b.text.endsWith("\\") && b.cursor === b.text.length) setBuf(insert(deleteBack(b), "\n"));
    else if (!controller.submit(b.text)) setBuf(b);
    else {
      history.current.push(b.text);
      setBuf(EMPTY_INPUT);
    }
  };

  const handle = (input: string, key: Key): void => {
    const state = store.get();
    const buf = bufRef.current;
    const choice = choiceRef.current;
    const approval = state.approvals[0];
    const options = state.clarification?.options ?? [];
    const action = actionFor(input, key);
    if (state.trustPrompt) {
      // Choice 0 is "don't trust", 1 "trust" (TRUST_CHOICES).
      if (input === "1" || input === "2") void controller.answerTrust(input === "2");
      else if (action === "historyPrev" || action === "historyNext") setChoice(1 - choice);
      else if (action === "submit") void controller.answerTrust(choice === 1);
      else if (action === "cancel" || action === "exit" || action === "interrupt") void controller.answerTrust(undefined);
      return;
    }
    if (state.modelPicker) {
      const n = state.modelPicker.length;
      if (/^[1-9]$/.test(input) && Number(input) <= n) void controller.pickModel(Number(input) - 1);
      else if (action === "historyPrev") setChoice((choice + n - 1) % n);
      else if (action === "historyNext") setChoice((choice + 1) % n);
      else if (action === "submit") void controller.pickModel(choice);
      else if (action === "cancel" || action === "exit" || action === "interrupt") void controller.pickModel(undefined);
      return;
    }
    if (action === "interrupt") {
      if (buf.text) setBuf(EMPTY_INPUT);
      else if (state.exitArmed) void controller.exit();
      else store.dispatch({ type: "ui.exit.arm", armed: true });
      return;
    }
    if (approval) return approvalKey(approval.id, input, key, action);
    const menu = menus.menuFor(buf);
    if (menu && menuKey(menu, buf, key, action)) return;
    const picking = options.length > 0 && buf.text === "";
    switch (action) {
      case "exit":
        if (!buf.text) void controller.exit();
        return;
      case "cancel": {
        // Esc takes back the newest queued message first (into the input, before what is there: nothing typed is
        // lost); with nothing queued it cancels the run.
        const back = controller.unqueueLast();
        if (back === undefined) controller.cancel();
        else setBuf(inputOf(buf.text ? `${back}\n${buf.text}` : back));
        return;
      }
      case "submit":
        if (!picking) submitBuffer(buf);
        else if (choice < options.length) send(options[choice]!);
        return;
      case "newline":
        return setBuf(insert(buf, "\n"));
      case "historyPrev": {
        if (picking) return setChoice((choice + options.length) % (options.length + 1));
        const h = history.current.prev(buf.text);
        if (h !== undefined) recall(h);
        return;
      }
      case "historyNext": {
        if (picking) return setChoice((choice + 1) % (options.length + 1));
        const h = history.current.next();
        if (h !== undefined) recall(h);
        return;
      }
      case "toggleTodos":
        return store.dispatch({ type: "ui.todos.toggle" });
      case "cycleApproval":
        return controller.cycleApproval();
      case "expandTool":
        return store.dispatch({ type: "ui.tool.expand" });
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
    if (picking && /^[1-9]$/.test(input) && Number(input) <= options.length) return send(options[Number(input) - 1]!);
    // Text and Enter in one chunk (typed faster than the terminal reads: automation, tmux send-keys, or typed before
    // the first frame, when the terminal still turned Enter into "\n") is a line and its Enter; a chunk with
    // several lines is a paste, kept as text.
    if (input.length > 1 && /[\r\n]$/.test(input) && !/[\r\n]/.test(input.slice(0, -1))) return submitBuffer(insert(buf, input.slice(0, -1)));
    setBuf(insert(buf, input));
  };

  /** A recalled input opens no menu (↑ goes on through the history, not into a menu). */
  const recall = (text: string): void => {
    menus.close(text);
    setBuf(inputOf(text));
  };

  /**
   * Keys while a `/` or `@` menu is open: ↑↓ select, tab completes, enter runs a command (one that needs arguments
   * is completed instead) or completes a path (a path typed out in full is sent), esc closes the menu. True when
   * the key was the menu's.
   */
  const menuKey = (menu: OpenMenu, b: InputBuffer, key: Key, action: ReturnType<typeof actionFor>): boolean => {
    if (action === "cancel") {
      menus.close(b.text);
      return true;
    }
    const item = menu.list.items[menu.selected];
    if (!item) return false;
    if (action === "historyPrev" || action === "historyNext") {
      menus.move(menu, action === "historyPrev" ? -1 : 1);
      return true;
    }
    const complete = () => setBuf(applyCompletion(b, menu.ctx, item));
    if (key.tab && !key.shift) {
      complete();
      return true;
    }
    if (action !== "submit") return false;
    // A path typed out in full is sent as it is (enter completes only what is unfinished).
    if (menu.ctx.kind === "path" && item.value === b.text.slice(menu.ctx.start, menu.ctx.end)) return false;
    if (menu.ctx.kind === "slash" && !item.needsArgs) send(item.value);
    else complete();
    return true;
  };

  /**
   * Keys while an approval waits. Only digits, arrows, Enter and Esc answer; letters never do (a sentence typed as
   * the prompt appears). Nothing typed is lost: text goes on into the input box (kept for later), and while it holds
   * text, digits and Enter belong to it too — an Enter or a "2" meant for a sentence must not approve anything.
   * Deny asks why; the reason is typed in the prompt and Enter sends it.
   */
  const approvalKey = (id: string, input: string, key: Key, action: ReturnType<typeof actionFor>): void => {
    const buf = bufRef.current;
    const reasonBuf = reasonRef.current;
    const pick = (d: ApprovalDecision, why?: string) => {
      setReason(null);
      controller.answerApproval(id, d, why);
    };
    if (reasonBuf) {
      // A reason and its Enter in one chunk (typed faster than the terminal reads).
      if (input.length > 1 && /[\r\n]$/.test(input) && !/[\r\n]/.test(input.slice(0, -1))) return pick("deny", insert(reasonBuf, input.slice(0, -1)).text);
      const edited = editKey(reasonBuf, input, key, action);
      if (action === "submit") pick("deny", reasonBuf.text);
      else if (action === "cancel") pick("deny");
      else if (edited) setReason(edited);
      return;
    }
    const choose = (i: number) => (APPROVAL_CHOICES[i] === "deny" ? setReason(EMPTY_INPUT) : pick(APPROVAL_CHOICES[i]!));
    const typing = buf.text !== "";
    if (!typing && /^[1-3]$/.test(input)) return choose(Number(input) - 1);
    if (action === "historyPrev") return setChoice((choiceRef.current + 2) % 3);
    if (action === "historyNext") return setChoice((choiceRef.current + 1) % 3);
    if (action === "cancel") return pick("deny");
    if (action === "expandTool") return controller.showPendingDiff(id);
    if (action === "submit") {
      if (!typing) return choose(choiceRef.current);
      store.dispatch({ type: "ui.hint", text: "Answer the prompt above first (1-3, or esc to deny); your message is kept." });
      return;
    }
    const edited = editKey(buf, input, key, action);
    if (edited) setBuf(edited);
  };

  // Ink re-subscribes when the handler changes; a stable wrapper around the latest handler keeps one subscription.
  const latest = useRef(handle);
  latest.current = handle;
  const stable = useCallback((input: string, key: Key) => latest.current(input, key), []);
  useInput(stable);
  return { buf, choice, reason, menu: menus.menuFor(buf) };
}

/** An editing key or typed text applied to `b` (one line: newlines become spaces); undefined for other keys. */
function editKey(b: InputBuffer, input: string, key: Key, action: ReturnType<typeof actionFor>): InputBuffer | undefined {
  switch (action) {
    case "cursorLeft":
      return moveLeft(b);
    case "cursorRight":
      return moveRight(b);
    case "lineStart":
      return lineStart(b);
    case "lineEnd":
      return lineEnd(b);
    case "deleteBack":
      return deleteBack(b);
    case "deleteWord":
      return deleteWordBack(b);
    case "killLine":
      return killToLineStart(b);
  }
  if (action || !input || key.ctrl || key.meta || key.tab) return undefined;
  return insert(b, input.replace(/[\r\n]+/g, " "));
}
