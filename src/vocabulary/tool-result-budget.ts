// How long one tool result may be before ToolOutputBudget keeps it in a file and the model sees a synopsis. A tool
// whose result must stay whole (a framed web page: its middle read back from a file would be unframed) pages itself
// below this size instead.
export const TOOL_RESULT_BUDGET_CHARS = 12_000;
