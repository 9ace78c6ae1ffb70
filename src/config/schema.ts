// The .deerflowrc schema. Strict objects so a typo ("modles") is reported, not silently ignored.
import { z } from "zod";

import { APPROVAL_MODES, type ApprovalMode } from "../vocabulary/approval-modes.js";
import { CHANNEL_MODES } from "../vocabulary/checkpoint-modes.js";
import { MAX_RUN_TIMEOUT_SECONDS } from "./run-timeout.js";
import { parseAllowHost } from "./allow-hosts.js";
import { hooksConfigSchema } from "./hooks-config.js";

/** `"$ENV_NAME"` means "read this environment variable"; anything else is the literal secret. */
const secretRef = z.string().min(1, 'a non-empty string (the key itself, or "$ENV_NAME" to read it from the environment)');

export const modelConfigSchema = z.strictObject({
  model: z.string().min(1, 'the provider\'s model id, e.g. "gpt-4o-mini" or "qwen2.5-coder:7b"'),
  baseUrl: z.url('an http(s) URL of an OpenAI-compatible endpoint, e.g. "http://localhost:11434/v1"').optional(),
  apiKey: secretRef.optional(),
  contextWindow: z.int().positive().optional(),
  maxTokens: z.int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  supportsVision: z.boolean().optional(),
  /**
   * Seconds before one model request is abandoned (then retried). At most a day: past 2^31 ms Node's timer fires at
   * once, so a repository's large value made every request "time out" at once (the forty-third pass's A43a-3).
   */
  timeout: z.number().positive().max(86_400).optional(),
  /** Seconds a streaming answer may go without data before it is abandoned (then retried); default 60; at most a day. */
  idleTimeout: z.number().positive().max(86_400).optional(),
  /** Stream answers (default true); false asks for whole JSON answers, for servers whose streaming is broken. */
  stream: z.boolean().optional(),
  /** Send each assistant turn's `reasoning_content` back (DeepSeek thinking mode requires it on tool-call turns). */
  passBackReasoning: z.boolean().optional(),
});
export type ModelConfig = z.infer<typeof modelConfigSchema>;

/**
 * One MCP server, in the shape Claude Code and Gemini CLI users already write: stdio (`command`, `args`, `env`,
 * `cwd`) or remote (`url`: streamable HTTP, or SSE with `type: "sse"`; Gemini's `httpUrl` is streamable HTTP).
 * Strings may use `$VAR` / `${VAR}` to read the environment. Times are milliseconds, as in Gemini CLI.
 */
export const mcpServerConfigSchema = z
  .strictObject({
    type: z.enum(["stdio", "http", "sse", "streamable-http", "streamableHttp"]).optional(),
    command: z.string().min(1, 'the program that starts the server, e.g. "npx"').optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    url: z.string().min(1, "the server's http(s) URL").optional(),
    httpUrl: z.string().min(1, "the server's http(s) URL").optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /** false: configured but not started. */
    enabled: z.boolean().optional(),
    /** Milliseconds one tool call may take (default 600000; at most a day, as every timer here). */
    timeout: z.int().positive().max(86_400_000).optional(),
    /** Milliseconds the server may take to start and list its tools (default: mcp.startupTimeout). */
    startupTimeout: z.int().positive().max(86_400_000).optional(),
    /** Only these tools (by the server's names); excludeTools wins over it. */
    includeTools: z.array(z.string().min(1)).optional(),
    excludeTools: z.array(z.string().min(1)).optional(),
    /** true: its tools run without asking in `ask` mode; or a list of its tools that do. */
    trust: z.union([z.boolean(), z.array(z.string().min(1))]).optional(),
    /** true (stdio only): the server runs confined like shell commands (bubblewrap: host read-only, workspace writable). */
    sandbox: z.boolean().optional(),
    /** A note for people (Gemini CLI has it); not used. */
    description: z.string().optional(),
  })
  .refine((s) => [s.command, s.url, s.httpUrl].filter((v) => v !== undefined).length === 1, {
    message: 'exactly one of "command" (a stdio server) or "url" / "httpUrl" (a remote server)',
  });
export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

export type ApprovalModeSetting = ApprovalMode;

/** The web_search providers (docs/web.md); SearXNG is self-hosted, so it has no default endpoint. */
export const WEB_SEARCH_PROVIDERS = ["tavily", "brave", "searxng"] as const;
export type WebSearchProvider = (typeof WEB_SEARCH_PROVIDERS)[number];

export const webConfigSchema = z.strictObject({
  /** The web_search tool's provider; without it the tool is not offered. */
  search: z
    .strictObject({
      provider: z.enum(WEB_SEARCH_PROVIDERS),
      /** Tavily's or Brave's API key (or "$ENV_NAME"); SearXNG needs none. */
      apiKey: secretRef.optional(),
      /** The endpoint: SearXNG's base URL (required), or another endpoint for Tavily or Brave (a proxy). */
      url: z.url('an http(s) URL, e.g. "http://localhost:8888" for a SearXNG instance').optional(),
      /** Results per search (default 5). */
      maxResults: z.int().min(1).max(20).optional(),
    })
    .optional(),
});
export type WebConfig = z.infer<typeof webConfigSchema>;

export const fileConfigSchema = z.strictObject({
  /** Name of the entry in `models` to use when no --model / DEERFLOW_MODEL is given. */
  defaultModel: z.string().min(1).optional(),
  /** Defaults for every model that does not set its own. */
  baseUrl: z.url("an http(s) URL of an OpenAI-compatible endpoint").optional(),
  apiKey: secretRef.optional(),
  models: z.record(z.string().min(1), modelConfigSchema).optional(),
  /** Data directory (checkpoints, thread workspaces). */
  home: z.string().min(1).optional(),
  /** A team database (postgres://user:pass@host/db, or "$ENV_NAME"): threads, checkpoints and runs live there. */
  database: secretRef.optional(),
  /** How guarded shell commands are approved: ask (default), auto-edit, yolo (blocked commands stay blocked). */
  approval: z.enum(APPROVAL_MODES).optional(),
  sandbox: z
    .strictObject({
      /** Seconds before a bash command's whole process group is killed. */
      bashTimeout: z.number().positive().max(86_400).optional(),
      /**
       * "on" (default): the public internet only, through deerflow's proxy (needs bubblewrap to confine); "off": no
       * network at all; "host": the host's whole network (its loopback services, the cloud metadata address).
       */
      network: z.enum(["on", "off", "host"]).optional(),
      /** Private hosts the proxied network may reach: "host", "host:port" or "[v6]:port" (docs/security.md). */
      allowHosts: z.array(z.string().refine((e) => typeof parseAllowHost(e) !== "string", { error: (i) => String(parseAllowHost(String(i.input))) })).optional(),
      /** Extra host directories commands may write / only read (at their own paths). */
      readWrite: z.array(z.string().min(1)).optional(),
      readOnly: z.array(z.string().min(1)).optional(),
      /** Environment variables that reach commands even though they look like secrets. */
      passEnv: z.array(z.string().min(1)).optional(),
      /** true: refuse to run shell commands when bubblewrap is unavailable, instead of running them unconfined. */
      require: z.boolean().optional(),
    })
    .optional(),
  /** Seconds one headless run may take; then it stops with status "timeout" (exit 5). Default: no limit. */
  runTimeout: z.number().positive().max(MAX_RUN_TIMEOUT_SECONDS).optional(),
  /** Guards that stop runaway runs (exit 5). */
  guards: z
    .strictObject({
      /** Repeats of the same tool calls that earn a warning, and that stop the run. */
      loopWarn: z.int().min(2).optional(),
      loopStop: z.int().min(2).optional(),
      /** Calls of one tool in one run that earn a warning, and that stop the run. */
      toolCallWarn: z.int().min(1).optional(),
      toolCallStop: z.int().min(1).optional(),
      /** Tokens (input + output) one run may spend; warned at 80%. */
      tokenBudget: z.int().min(1000).optional(),
    })
    .optional(),
  /** Extra subagent types for the `task` tool, by name (besides general-purpose, bash and agents/*.md files). */
  subagents: z
    .record(
      z.string().min(1),
      z.strictObject({
        description: z.string().min(1),
        /** Tool names, or "all-but-task" (default). */
        tools: z.union([z.literal("all-but-task"), z.array(z.string().min(1))]).optional(),
        maxTurns: z.int().positive().optional(),
        /** A name from `models`; default: the parent's model. */
        model: z.string().min(1).optional(),
        systemPrompt: z.string().min(1),
      }),
    )
    .optional(),
  /** Compaction of long conversations (by the model's contextWindow, else the window its server states, else 32k). */
  compaction: z
    .strictObject({
      /** false: never compact (the request grows until the provider refuses it). Default true. */
      enabled: z.boolean().optional(),
      /** Compact when a request would pass this fraction of the model's contextWindow. Default 0.75. */
      threshold: z.number().min(0.2).max(0.95).optional(),
      /** Tokens of the most recent turns kept verbatim. Default 30% of the contextWindow. */
      keepRecentTokens: z.int().min(256).optional(),
      /** Compact also when the conversation passes this many messages (the recent half is kept). Default 200. */
      maxMessages: z.int().min(10).optional(),
    })
    .optional(),
  /** Facts learned across threads (per user, in the data directory's memory/). */
  memory: z
    .strictObject({
      /** false: nothing is learned or shown (same as --no-memory). Default true. */
      enabled: z.boolean().optional(),
    })
    .optional(),
  /** true: e-mails, phone numbers, card numbers, national IDs and API keys are masked in what is sent to the provider. */
  piiRedaction: z.boolean().optional(),
  /** MCP servers by name (the key names the server in tool names: mcp__<name>__<tool>). */
  mcpServers: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/, 'letters, digits, ".", "_" and "-" (at most 40)'), mcpServerConfigSchema).optional(),
  /** How MCP servers start and how their tools are offered. */
  mcp: z
    .strictObject({
      /** Milliseconds each server may take to start and list its tools (default 30000). */
      startupTimeout: z.int().positive().max(86_400_000).optional(),
      /** More MCP tools than this → they are deferred: listed by name, promoted with tool_search (default 20). */
      deferAbove: z.int().min(0).optional(),
      /** Or when their schemas would take more than this many tokens (default 8000). */
      deferTokens: z.int().min(0).optional(),
    })
    .optional(),
  /** web_fetch and web_search (docs/web.md). */
  web: webConfigSchema.optional(),
  /** Commands run on agent events (Claude Code's shape: docs/hooks.md). */
  hooks: hooksConfigSchema.optional(),
  checkpoint: z
    .strictObject({
      channelMode: z.enum(CHANNEL_MODES).optional(),
      snapshotFrequency: z.int().min(1).max(1000).optional(),
    })
    .optional(),
});
export type FileConfig = z.infer<typeof fileConfigSchema>;
