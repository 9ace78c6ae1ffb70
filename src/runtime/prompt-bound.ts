// A prompt that cannot fit the model is refused before anything is sent or recorded. With a configured
// contextWindow, the window is the bound (compaction cannot shrink the user's own message). Without one, deerflow
// does not know the window, and a 50 MB paste used to be uploaded whole (minutes of upload for an opaque 400, or a
// large bill): the bound is then UNKNOWN_WINDOW_TOKENS, the largest window of common hosted models, which a user
// with a larger model lifts by setting its contextWindow.
import { ContextOverflowError, DeerflowError, ExitCode } from "../errors.js";
import { estimateTokens } from "../model/usage-estimate.js";
import type { ResolvedModel } from "../config/load.js";

/** 1M tokens (about 4 MB of text): GPT-4.1 and Gemini 2.5's windows; larger windows need contextWindow set. */
export const UNKNOWN_WINDOW_TOKENS = 1_048_576;

export class PromptTooLongError extends DeerflowError {
  constructor(tokens: number, what = "The prompt") {
    super(
      `${what} is too long to send: about ${tokens.toLocaleString("en-US")} tokens, more than the ${UNKNOWN_WINDOW_TOKENS.toLocaleString("en-US")} deerflow sends to a model whose context window is not configured.`,
      {
        exitCode: ExitCode.runtime,
        hint: "Save the text as a file in the workspace and ask about the file (the model reads it in parts); if the model's window is larger, set its contextWindow in .deerflowrc.",
      },
    );
  }
}

/** The most tokens a prompt alone may hold for this model: its window, or the bound above when none is known. */
export function promptTokenBound(model: Pick<ResolvedModel, "contextWindow">): number {
  return model.contextWindow ?? UNKNOWN_WINDOW_TOKENS;
}

/**
 * Throws when a text prompt alone is larger than the model's window (or, with no window known, the bound above).
 * `what` names it in the message ("The piped input").
 */
export function assertPromptFits(prompt: unknown, model: Pick<ResolvedModel, "contextWindow">, what = "The prompt"): void {
  if (typeof prompt !== "string") return;
  const tokens = estimateTokens(prompt.length);
  if (tokens <= promptTokenBound(model)) return;
  if (model.contextWindow !== undefined) throw new ContextOverflowError(what, tokens, model.contextWindow);
  throw new PromptTooLongError(tokens, what);
}
