// Runs a piece of background work once the run's model has begun to answer (its first streamed token, or its whole
// answer; never on a failure: a run being stopped must not start a sandbox while it winds down): the request is then on the wire, so synchronous work (the sandbox session's set-up) no
// longer delays it, and it overlaps the rest of the answer instead. Once per run, on the next turn of the event loop
// (never inside LangChain's callback).
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";

export class OnModelAnswer extends BaseCallbackHandler {
  name = "deerflow_on_model_answer";
  private done = false;

  constructor(private readonly work: () => void) {
    super();
  }

  private fire(): void {
    if (this.done) return;
    this.done = true;
    setImmediate(this.work).unref();
  }

  override handleLLMNewToken(): void {
    this.fire();
  }

  override handleLLMEnd(): void {
    this.fire();
  }
}
