// The longest run time limit (--timeout, .deerflowrc runTimeout), in seconds: a week. Also keeps the timer inside
// what Node's setTimeout can hold (about 24.8 days; beyond that it fires at once).
export const MAX_RUN_TIMEOUT_SECONDS = 604_800;
