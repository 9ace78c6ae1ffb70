// What the model layer can say about a response that the HTTP status did not: it stalled, it ended early, or it
// is not the OpenAI protocol at all. LLMErrorHandling turns these into the user's one-line ProviderError; `transient`
// says whether asking again can help. NOTE: never named "AbortError" — the OpenAI SDK silently ends a stream on
// those, which would turn a stall into an (incomplete) success.
export type ModelStreamErrorKind = "idle_timeout" | "incomplete" | "protocol" | "provider" | "too_long";

export class ModelStreamError extends Error {
  readonly kind: ModelStreamErrorKind;
  readonly transient: boolean;
  /** HTTP-like status a provider put inside a 200 body (`{"error":{"code":502}}`), when it did. */
  readonly status?: number;
  constructor(kind: ModelStreamErrorKind, message: string, opts: { transient: boolean; status?: number }) {
    super(message);
    this.name = "ModelStreamError";
    this.kind = kind;
    this.transient = opts.transient;
    this.status = opts.status;
  }
}

export function isModelStreamError(e: unknown): e is ModelStreamError {
  return e instanceof ModelStreamError || (typeof e === "object" && e !== null && (e as Error).name === "ModelStreamError" && "kind" in e);
}
