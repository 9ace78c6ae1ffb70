// Credentials deerflow holds that no environment variable names as one: a model's apiKey from a configuration file,
// literal or read from a variable whose name does not look like a key (`"apiKey": "$LLM_GATEWAY"`). Masked wherever
// the environment's credentials are: the twenty-ninth pass's A29c-4 printed such a key whole in stream-json, the
// thread database and hook input.
const held = new Set<string>();

/** 12 characters or more, as for the environment's: a short value would mask ordinary words. */
export function holdCredential(value: string | undefined): void {
  if (value && value.length >= 12) held.add(value);
}

export function heldCredentials(): string[] {
  return [...held];
}
