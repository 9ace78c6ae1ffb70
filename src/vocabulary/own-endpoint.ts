// What the model picker and `run` call the endpoint the user set up (OPENAI_BASE_URL / OPENAI_API_KEY, no model),
// beside the local servers found on this machine.
export const OWN_ENDPOINT_NAME = "your endpoint";
