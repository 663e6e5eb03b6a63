/**
 * The gateway's configuration: one zod schema over the environment, parsed once at start.
 *
 * Every variable is optional except `REDIS_URL` and `AHP_AGENT_TOKENS_FILE`; an empty value
 * (`VAR=` in a compose file) counts as unset, so it takes the default instead of failing. A bad
 * value stops the process with a message that names the variable, before anything listens.
 * {@link describeConfig} lists every variable with its default, for the docs and for tools that
 * check a deployment's environment against this schema.
 */
import { hostname } from 'node:os';
import {
  FRAME_LIMITS,
  FailurePolicySchema,
  HookTriggerSchema,
  RedisClusterNodesTextSchema,
  defaultFailurePolicy,
  type FailurePolicy,
  type HookTrigger,
} from '@ahp/protocol';
import { LogLevelSchema, type LogLevel } from '@ahp/telemetry';
import { z } from 'zod';

const MIB = 1024 * 1024;

/** `VAR=` means "not set": compose files and shells produce empty values for unset variables. */
function blankToUndefined(value: unknown): unknown {
  return typeof value === 'string' && value.trim() === '' ? undefined : value;
}

/** The digits of a whole number of `min..max`, as an environment string holds it. */
function wholeNumber(min: number, max: number) {
  return z
    .string()
    .trim()
    .regex(/^[0-9]+$/, 'must be a whole number (digits only)')
    .transform(Number)
    .pipe(z.int().min(min).max(max));
}

/** A whole number of `min..max` from an environment string. */
function intVar(min: number, max: number, fallback: number) {
  return z.preprocess(blankToUndefined, wholeNumber(min, max).default(fallback));
}

/** Like {@link intVar}, without a fixed default (the default is derived from other variables). */
function optionalIntVar(min: number, max: number) {
  return z.preprocess(blankToUndefined, wholeNumber(min, max).optional());
}

/** A rate per second from an environment string: a decimal number of `0..max` (0 switches the limit off). */
function rateVar(max: number, fallback: number) {
  return z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .regex(/^[0-9]{1,7}(\.[0-9]{1,6})?$/, 'must be a number such as 100 or 0.5 (0 switches the limit off)')
      .transform(Number)
      .pipe(z.number().min(0).max(max))
      .default(fallback),
  );
}

/** A JSON document from an environment string, then checked by `schema`. */
function jsonVar<T extends z.ZodType>(schema: T) {
  return z.preprocess(
    blankToUndefined,
    z
      .string()
      .transform((text, ctx): unknown => {
        try {
          return JSON.parse(text) as unknown;
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: `must be JSON (${error instanceof Error ? error.message : 'parse error'})` });
          return z.NEVER;
        }
      })
      .pipe(schema)
      .optional(),
  );
}

/** Ids go into Redis keys and frames: the protocol's id alphabet, 1–128 characters. */
const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** `gw-<hostname>-<pid>`, reduced to the id alphabet so any hostname works. */
export function defaultGatewayId(host: string = hostname(), pid: number = process.pid): string {
  const safeHost = host.replace(/[^A-Za-z0-9.-]+/g, '-').slice(0, 100) || 'host';
  return `gw-${safeHost}-${pid}`;
}

const deadlineMs = z.int().min(1).max(FRAME_LIMITS.maxHookDeadlineMs);

/**
 * The environment variables the gateway reads, as a zod object keyed by variable name (so every
 * issue path starts with the variable that caused it). Defaults are applied here.
 */
export const GatewayEnvSchema = z.object({
  PORT: intVar(0, 65_535, 8080),
  HOST: z.preprocess(blankToUndefined, z.string().min(1).default('0.0.0.0')),
  REDIS_URL: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL')
      .optional(),
  ),
  REDIS_CLUSTER_NODES: z.preprocess(blankToUndefined, RedisClusterNodesTextSchema.optional()),
  AHP_HOOK_QUEUE_SHARDS: optionalIntVar(1, 64),
  AHP_REDIS_WAIT_REPLICAS: intVar(0, 16, 0),
  AHP_REDIS_WAIT_TIMEOUT_MS: intVar(1, 60_000, 100),
  AHP_KEY_PREFIX: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^[^\s{}]+$/, 'must be non-empty, without spaces or braces')
      .default('ahp'),
  ),
  AHP_GATEWAY_ID: z.preprocess(
    blankToUndefined,
    z.string().regex(ID_PATTERN, 'must be 1-128 of letters, digits and . _ : -').optional(),
  ),
  AHP_AGENT_TOKENS_FILE: z.preprocess(
    blankToUndefined,
    z.string({ error: 'is required: path of the JSON file with the agents and their token digests' }),
  ),
  AHP_OPERATOR_TOKENS_FILE: z.preprocess(blankToUndefined, z.string().optional()),
  AHP_LINK_SECRET: z.preprocess(blankToUndefined, z.string().trim().min(32, 'must be at least 32 characters').optional()),
  AHP_REDACTION_KEY: z.preprocess(blankToUndefined, z.string().trim().min(32, 'must be at least 32 characters').optional()),
  AHP_MCP_CONFIG_FILE: z.preprocess(blankToUndefined, z.string().optional()),
  AHP_CONSOLE_ORIGINS: z.preprocess(
    blankToUndefined,
    z
      .string()
      .transform((value) => value.split(',').map((origin) => origin.trim()).filter((origin) => origin.length > 0))
      .pipe(z.array(z.url({ protocol: /^https?$/ }).refine((origin) => new URL(origin).origin === origin, 'must be an origin: scheme://host[:port], no path')))
      .optional(),
  ),
  AHP_REQUEST_SWEEP_MS: intVar(50, 60 * 60 * 1000, 1000),
  AHP_AGENT_MAX_PENDING_REQUESTS: intVar(1, 100_000, 100),
  AHP_AGENT_REQUEST_MAX_LIFETIME_MS: intVar(1000, FRAME_LIMITS.maxRequestDeadlineMs, FRAME_LIMITS.maxRequestDeadlineMs),
  AHP_INBOX_MAX_MESSAGES: intVar(1, 1_000_000, 1000),
  AHP_INBOX_MAX_BYTES: intVar(1024 * 1024, 4096 * MIB, 16 * MIB),
  AHP_HOOK_DEADLINE_MS: intVar(1, FRAME_LIMITS.maxHookDeadlineMs, 10_000),
  AHP_HOOK_DEADLINES: jsonVar(z.partialRecord(HookTriggerSchema, deadlineMs)),
  AHP_CLAUDE_CODE_DEADLINE_MS: intVar(100, FRAME_LIMITS.maxHookDeadlineMs, 8000),
  AHP_CLAUDE_CODE_PRESENCE_TTL_MS: intVar(10_000, 24 * 60 * 60 * 1000, 900_000),
  AHP_PERMISSION_WAIT_MS: intVar(0, 10 * 60 * 1000, 45_000),
  AHP_FAILURE_POLICIES: jsonVar(z.partialRecord(HookTriggerSchema, FailurePolicySchema)),
  AHP_HEARTBEAT_MS: intVar(1000, 10 * 60 * 1000, 15_000),
  AHP_HELLO_TIMEOUT_MS: intVar(100, 10 * 60 * 1000, 10_000),
  AHP_PRESENCE_TTL_MS: intVar(1000, 24 * 60 * 60 * 1000, 45_000),
  AHP_SESSION_TTL_MS: intVar(1000, 30 * 24 * 60 * 60 * 1000, 3_600_000),
  AHP_MAX_FRAME_BYTES: intVar(1024, 64 * MIB, MIB),
  AHP_MAX_BUFFERED_BYTES: intVar(64 * 1024, 1024 * MIB, 4 * MIB),
  AHP_MAX_IN_FLIGHT: intVar(1, 100_000, 256),
  AHP_FAIR_IN_FLIGHT: intVar(0, 100_000, 16),
  AHP_AGENT_RATE_PER_S: rateVar(1_000_000, 100),
  AHP_AGENT_BURST: intVar(1, 1_000_000, 500),
  AHP_AGENT_RATE_LEASE: intVar(1, 1_000, 16),
  AHP_AGENT_MAX_CONNECTIONS: intVar(0, 100_000, 32),
  AHP_AGENT_NEW_SESSIONS_PER_MIN: rateVar(1_000_000, 60),
  AHP_AGENT_NEW_SESSION_BURST: intVar(1, 1_000_000, 60),
  AHP_AGENT_INPUT_FRAMES_PER_S: intVar(1, 10_000_000, 200),
  AHP_AGENT_INPUT_FRAME_BURST: intVar(1, 100_000_000, 1000),
  AHP_AGENT_INPUT_BYTES_PER_S: optionalIntVar(1024, 1024 * 1024 * MIB),
  AHP_AGENT_INPUT_BYTE_BURST: optionalIntVar(1024, 1024 * 1024 * MIB),
  AHP_OPERATOR_RATE_PER_S: rateVar(1_000_000, 50),
  AHP_OPERATOR_BURST: intVar(1, 1_000_000, 200),
  AHP_SHUTDOWN_GRACE_MS: intVar(0, 10 * 60 * 1000, 10_000),
  AHP_LOG_LEVEL: LogLevelSchema,
  AHP_METRICS_TOKEN: z.preprocess(blankToUndefined, z.string().trim().min(16, 'must be at least 16 characters').optional()),
});

/** The variable names of {@link GatewayEnvSchema}. */
export type GatewayEnvName = keyof typeof GatewayEnvSchema.shape;

/** The parsed configuration, in the names the code uses. */
export interface GatewayConfig {
  port: number;
  host: string;
  /** Undefined only with `redisClusterNodes` (then only its scheme and credentials are used). */
  redisUrl: string | undefined;
  /** `host:port,…` of a Redis Cluster; undefined for one Redis at `redisUrl`. */
  redisClusterNodes: string | undefined;
  /** Hook queue shards wanted; undefined: the deployment's stored count, or its default (number of masters, 1 for one Redis). */
  hookQueueShards: number | undefined;
  /** Replica acknowledgements after deciding writes (`AHP_REDIS_WAIT_REPLICAS`, 0 = off) and their timeout. */
  redisWait: { replicas: number; timeoutMs: number };
  keyPrefix: string;
  gatewayId: string;
  agentTokensFile: string;
  /** Undefined: the operator API refuses every call (no operator can authenticate). */
  operatorTokensFile: string | undefined;
  /** The decision links' HMAC secret; undefined: the one kept in Redis. */
  linkSecret: string | undefined;
  /** The redaction markers' HMAC key (`AHP_REDACTION_KEY`); undefined: the one kept in Redis. */
  redactionKey: string | undefined;
  /** The MCP gateway's upstream servers (`AHP_MCP_CONFIG_FILE`, docs/mcp-gateway.md); undefined: `/v1/mcp` answers 404. */
  mcpConfigFile: string | undefined;
  /** Browser origins allowed on the operators live feed (`AHP_CONSOLE_ORIGINS`). */
  consoleOrigins: readonly string[];
  requestSweepMs: number;
  /** Most pending requests one agent may have opened (`AHP_AGENT_MAX_PENDING_REQUESTS`); more are refused with E_RATE_LIMITED. */
  agentMaxPendingRequests: number;
  /** Longest life of a request an agent opens (`AHP_AGENT_REQUEST_MAX_LIFETIME_MS`): its deadline when it names none, and the cap of the one it names. */
  agentRequestMaxLifetimeMs: number;
  /** Most unacknowledged messages per inbox (`AHP_INBOX_MAX_MESSAGES`). */
  inboxMaxMessages: number;
  /** Most bytes of unacknowledged messages per inbox (`AHP_INBOX_MAX_BYTES`). */
  inboxMaxBytes: number;
  hookDeadlineMs: number;
  hookDeadlines: Readonly<Partial<Record<HookTrigger, number>>>;
  /**
   * Longest wait of the Claude Code hook endpoint before it answers with the failure policy; kept
   * below Claude Code's own hook timeout, which would otherwise let the tool call run.
   * @defaultValue 8000
   */
  claudeCodeDeadlineMs: number;
  /** How long a coding agent's session (Claude Code, Codex, Copilot) stays in presence after its last hook (AHP_CLAUDE_CODE_PRESENCE_TTL_MS). */
  claudeCodePresenceTtlMs: number;
  /**
   * Longest time a coding agent's permission prompt hook is held open, from its arrival, while an
   * operator decides the tool approval a rule asked for (AHP_PERMISSION_WAIT_MS); 0: never held
   * (denied at once with the instruction to retry). A hook may ask for less (`X-AHP-Wait-Ms`).
   */
  permissionWaitMs: number;
  failurePolicies: Readonly<Partial<Record<HookTrigger, FailurePolicy>>>;
  heartbeatMs: number;
  helloTimeoutMs: number;
  presenceTtlMs: number;
  sessionTtlMs: number;
  maxFrameBytes: number;
  /**
   * Largest message the transport reads (ws `maxPayload`): twice `maxFrameBytes`. A message
   * between the two is read, discarded and answered `E_FRAME_TOO_LARGE`; a larger one closes the
   * connection with 1009 while it arrives.
   */
  maxMessageBytes: number;
  /**
   * What one agent may make this gateway read over all its connections, every message counted
   * before it is parsed (`AHP_AGENT_INPUT_*`); beyond it the connection is closed with 4006.
   */
  inputBudget: { framesPerSecond: number; frameBurst: number; bytesPerSecond: number; byteBurst: number };
  maxBufferedBytes: number;
  maxInFlight: number;
  /**
   * Hooks a connection may have in flight before its next ones queue behind everyone else's
   * (`AHP_FAIR_IN_FLIGHT`; 0: no fair queueing). See hooks/queue-priority.ts.
   */
  fairInFlight: number;
  /**
   * Frames per second one agent may send on average (across all its connections and gateways),
   * counting `hook`, `request`, `response`, `send`, `signal_response` and `event`; 0: no limit.
   * @defaultValue 100
   */
  agentRatePerSecond: number;
  /** Such frames an agent may send at once after a quiet period. @defaultValue 500 */
  agentBurst: number;
  /**
   * Most tokens of an agent's bucket one Redis call takes for this gateway to spend locally
   * (`leaseTokens` of `@ahp/store`); 1: every counted frame asks Redis. @defaultValue 16
   */
  agentRateLease: number;
  /**
   * WebSocket connections one agent may hold open on this gateway at once, counted from the
   * upgrade (before `hello`), so idle sockets count too; 0: no limit. @defaultValue 32
   */
  agentMaxConnections: number;
  /**
   * New sessions (a `hello` that resumes none) one agent may start per minute on average, over all
   * gateways (a token bucket in Redis); 0: no limit. @defaultValue 60
   */
  agentNewSessionsPerMinute: number;
  /** New sessions one agent may start at once after a quiet period. @defaultValue 60 */
  agentNewSessionBurst: number;
  /** Operator API calls per second one operator may make on average (across gateways); 0: no limit. @defaultValue 50 */
  operatorRatePerSecond: number;
  /** Operator API calls one operator may make at once. @defaultValue 200 */
  operatorBurst: number;
  shutdownGraceMs: number;
  logLevel: LogLevel;
  /** Bearer token `GET /metrics` requires; undefined: the endpoint is open (keep it on a private network). */
  metricsToken: string | undefined;
}

/** What one variable means, for docs and deployment checks. */
export interface ConfigVariable {
  name: GatewayEnvName;
  required: boolean;
  /** The default as it would be written in the environment; undefined when required or computed. */
  default: string | undefined;
  description: string;
}

const VARIABLES: Readonly<Record<GatewayEnvName, Omit<ConfigVariable, 'name'>>> = {
  PORT: { required: false, default: '8080', description: 'TCP port of HTTP and WebSocket; 0 picks any free port (the ready line reports it).' },
  HOST: { required: false, default: '0.0.0.0', description: 'Interface to listen on.' },
  REDIS_URL: {
    required: true,
    default: undefined,
    description: 'redis:// or rediss:// URL of the Redis shared by gateways and workers. Required unless REDIS_CLUSTER_NODES is set (then only its scheme and credentials are used, for every node, and its host must be one of the listed nodes).',
  },
  REDIS_CLUSTER_NODES: {
    required: false,
    default: undefined,
    description: 'host:port,host:port,… of a Redis Cluster: run on the cluster instead of one Redis (docs/deploy.md §8). A few nodes are enough; the rest is discovered.',
  },
  AHP_HOOK_QUEUE_SHARDS: {
    required: false,
    default: undefined,
    description: 'Number of hook queue shards (BullMQ queues under their own hash tags); default: the number of cluster masters, 1 for one Redis. Fixed by the first process of a deployment; a different value is refused at start.',
  },
  AHP_REDIS_WAIT_REPLICAS: { required: false, default: '0', description: 'Replicas that must have a hook\'s decision or a request\'s change before it is routed on (Redis `WAIT` on the master that holds it), so a failover cannot lose a decision an agent already acts on. 0: off (Redis replicates asynchronously). Set it to the replicas each master has.' },
  AHP_REDIS_WAIT_TIMEOUT_MS: { required: false, default: '100', description: 'Longest wait for AHP_REDIS_WAIT_REPLICAS per deciding write; when fewer replicas answer in time the write stands and the shortfall is logged.' },
  AHP_KEY_PREFIX: { required: false, default: 'ahp', description: 'Prefix of every Redis key (and of the BullMQ queue); deployments sharing one Redis need different prefixes.' },
  AHP_GATEWAY_ID: {
    required: false,
    default: undefined,
    description: 'Id of this instance, unique among running gateways; decisions are routed to it by this id. Default gw-<hostname>-<pid>.',
  },
  AHP_AGENT_TOKENS_FILE: {
    required: true,
    default: undefined,
    description: 'JSON file {"agents":[{id,name,team?,role?,environment?,token_sha256,revoked?}]}; re-read on SIGHUP.',
  },
  AHP_OPERATOR_TOKENS_FILE: {
    required: false,
    default: undefined,
    description:
      'JSON file {"operators":[{id,name,role,token_sha256,revoked?}]} with role viewer | approver | admin; re-read on SIGHUP. Unset: the operator API refuses every call (401).',
  },
  AHP_LINK_SECRET: {
    required: false,
    default: undefined,
    description:
      'HMAC secret of the decision links in notifications (at least 32 characters), the same on every gateway and worker. Unset: the one the first process wrote to Redis (<prefix>:notify:link-secret). docs/notifications.md.',
  },
  AHP_REDACTION_KEY: {
    required: false,
    default: undefined,
    description:
      'HMAC key of the markers that replace secret-named fields of queued hook contexts (at least 32 characters), the same on every gateway; keeps two inputs differing only in a secret apart (approval digests, grants) without storing it. Unset: the one the first gateway wrote to Redis (<prefix>:redaction-key), which a reader of Redis can use to test guesses of low-entropy secrets. docs/security.md.',
  },
  AHP_MCP_CONFIG_FILE: {
    required: false,
    default: undefined,
    description:
      'JSON file of the upstream MCP servers this gateway fronts at /v1/mcp/<server> (docs/mcp-gateway.md); read at start-up, an invalid file stops the gateway. Unset: the MCP gateway is off (404).',
  },
  AHP_CONSOLE_ORIGINS: {
    required: false,
    default: undefined,
    description:
      'Comma-separated origins (e.g. https://console.example.com) allowed to open the operators live feed from a browser; a request to /v1/operator/live with any other Origin is refused. Unset: only requests without an Origin header (the console server, scripts).',
  },
  AHP_REQUEST_SWEEP_MS: {
    required: false,
    default: '1000',
    description: 'How often this gateway expires pending requests past their deadline (every gateway sweeps; the store makes that safe).',
  },
  AHP_AGENT_MAX_PENDING_REQUESTS: {
    required: false,
    default: '100',
    description: 'Pending requests one agent may have opened with request frames, over all gateways; more are refused with E_RATE_LIMITED until one is decided, expires or is cancelled.',
  },
  AHP_AGENT_REQUEST_MAX_LIFETIME_MS: {
    required: false,
    default: '604800000',
    description: "Longest life of a request an agent opens (7 days, the longest deadline_ms a frame may name): its deadline when the frame names no deadline_ms, and the cap of the one it names, so every agent's request expires.",
  },
  AHP_INBOX_MAX_MESSAGES: {
    required: false,
    default: '1000',
    description: 'Unacknowledged messages one agent inbox may hold; a send frame beyond it is refused with E_RATE_LIMITED (the recipient and its inbox are not disturbed). Request messages are counted but never refused.',
  },
  AHP_INBOX_MAX_BYTES: {
    required: false,
    default: '16777216',
    description: 'Bytes of unacknowledged messages one agent inbox may hold (16 MiB: 64 messages of the largest size); a send frame beyond it is refused with E_RATE_LIMITED.',
  },
  AHP_HOOK_DEADLINE_MS: { required: false, default: '10000', description: 'Evaluation deadline of a hook; the failure policy decides after it.' },
  AHP_HOOK_DEADLINES: { required: false, default: undefined, description: 'JSON object trigger -> deadline ms, overriding AHP_HOOK_DEADLINE_MS per trigger.' },
  AHP_CLAUDE_CODE_DEADLINE_MS: {
    required: false,
    default: '8000',
    description:
      'Longest wait of POST /v1/hooks/claude-code before it answers with the failure policy (fail_closed: an explicit deny); keep it below the hook timeout set in Claude Code.',
  },
  AHP_CLAUDE_CODE_PRESENCE_TTL_MS: {
    required: false,
    default: '900000',
    description:
      'How long a Claude Code session stays in the fleet (idle) after its last hook; Claude Code has no connection, so its presence is refreshed by hooks and ages out when the session goes quiet.',
  },
  AHP_PERMISSION_WAIT_MS: {
    required: false,
    default: '45000',
    description:
      "Longest hold of a coding agent's permission prompt hook (Claude Code, Codex, Copilot) while an operator decides the approval a rule asked for; then the rule's prompt_fallback answers (dialog or deny). Keep it below the agent's hook timeout; 0 turns holding off.",
  },
  AHP_FAILURE_POLICIES: {
    required: false,
    default: undefined,
    description: 'JSON object trigger -> "fail_closed" | "fail_open". Unlisted triggers: fail_closed for the pre-* gates, fail_open otherwise.',
  },
  AHP_HEARTBEAT_MS: { required: false, default: '15000', description: 'WebSocket ping interval; a peer that did not answer the previous ping is terminated.' },
  AHP_HELLO_TIMEOUT_MS: { required: false, default: '10000', description: 'Time a new connection has to send hello before it is closed (4002).' },
  AHP_PRESENCE_TTL_MS: { required: false, default: '45000', description: 'Lifetime of a presence entry without refresh; must exceed AHP_HEARTBEAT_MS.' },
  AHP_SESSION_TTL_MS: { required: false, default: '3600000', description: 'How long a session can be resumed after its last use.' },
  AHP_MAX_FRAME_BYTES: {
    required: false,
    default: '1048576',
    description:
      'Largest accepted frame; up to twice as large it is read, discarded and answered E_FRAME_TOO_LARGE, larger still the connection is closed with 1009 (the ws maxPayload). Also the largest Claude Code hook body: a larger one is denied (fail closed) without being parsed.',
  },
  AHP_MAX_BUFFERED_BYTES: {
    required: false,
    default: '4194304',
    description: 'Send buffer per connection; above it the connection is closed as a slow consumer (4004).',
  },
  AHP_MAX_IN_FLIGHT: { required: false, default: '256', description: 'Hooks one connection may have awaiting a decision; more are refused with E_RATE_LIMITED.' },
  AHP_FAIR_IN_FLIGHT: {
    required: false,
    default: '16',
    description:
      "Hooks one connection may have in flight at the front of the queue; its hooks beyond that are queued with a BullMQ priority (after every other agent's, the deeper its backlog the later), so one agent's burst does not delay the others. 0 turns fair queueing off.",
  },
  AHP_AGENT_RATE_PER_S: {
    required: false,
    default: '100',
    description:
      'Frames per second one agent may send on average, over all its connections and gateways (a token bucket in Redis), counting hook, request, response, send, signal_response and event frames and Claude Code HTTP hooks; more are refused with E_RATE_LIMITED and retry_after_ms (a Claude Code hook: a fail-closed deny). Decimals allowed; 0 switches the limit off.',
  },
  AHP_AGENT_BURST: { required: false, default: '500', description: 'Frames an agent may send at once after a quiet period (the bucket size); at least max_in_flight, so a reconnect that re-sends every pending hook is not refused.' },
  AHP_AGENT_INPUT_FRAMES_PER_S: {
    required: false,
    default: '200',
    description:
      'Messages per second one agent may send to this gateway on average, over all its connections, every message counted (valid or not, hello and inbox_ack included) before it is parsed; beyond AHP_AGENT_INPUT_FRAME_BURST the connection is closed with 4006 CONNECTION_RATE_LIMITED. Keep it above AHP_AGENT_RATE_PER_S, which refuses single frames politely.',
  },
  AHP_AGENT_INPUT_FRAME_BURST: { required: false, default: '1000', description: 'Messages one agent may send to this gateway at once after a quiet period (see AHP_AGENT_INPUT_FRAMES_PER_S).' },
  AHP_AGENT_INPUT_BYTES_PER_S: {
    required: false,
    default: undefined,
    description:
      'Unset: 2097152 (2 MiB), or 2 × AHP_MAX_FRAME_BYTES when that is larger. Bytes per second one agent may send to this gateway on average, over all its connections; a message costs its size or 16 bytes per JSON value in it, whichever is more (parsing costs per value). Beyond AHP_AGENT_INPUT_BYTE_BURST the connection is closed with 4006.',
  },
  AHP_AGENT_INPUT_BYTE_BURST: {
    required: false,
    default: undefined,
    description: 'Unset: 8388608 (8 MiB), or 8 × AHP_MAX_FRAME_BYTES when that is larger. Bytes one agent may send to this gateway at once after a quiet period; at least 2 × AHP_MAX_FRAME_BYTES (the largest message read).',
  },
  AHP_AGENT_RATE_LEASE: {
    required: false,
    default: '16',
    description:
      'Tokens of an agent\'s bucket this gateway takes from Redis in one call (for a hook, in the script that records it) and spends locally for a second (never more than an eighth of what the bucket holds), so most frames and hooks are counted without a round trip; the limit still holds across gateways, unspent tokens are dropped. 1: ask Redis for every frame.',
  },
  AHP_AGENT_MAX_CONNECTIONS: {
    required: false,
    default: '32',
    description:
      'WebSocket connections one agent (one token) may hold open on this gateway at once, counted from the upgrade, before hello; one more is answered with an error frame E_RATE_LIMITED (id null, details.limit.max_connections) and closed with 4006 CONNECTION_RATE_LIMITED. Per gateway: behind a load balancer an agent may hold this many on each. 0 switches the limit off.',
  },
  AHP_AGENT_NEW_SESSIONS_PER_MIN: {
    required: false,
    default: '60',
    description:
      'New sessions one agent may start per minute on average, over all gateways (a token bucket in Redis): a hello without session_id or whose session cannot be resumed, a hook frame naming a new session_id, a coding agent hook of a new agent session, an MCP call with a new X-AHP-Session label. Beyond AHP_AGENT_NEW_SESSION_BURST the hello or hook frame is answered E_RATE_LIMITED with retry_after_ms (the connection stays open for another hello), a coding agent hook its fail-closed answer, an MCP call a JSON-RPC error; the session is not written. Resuming a session is not counted. Decimals allowed; 0 switches the limit off.',
  },
  AHP_AGENT_NEW_SESSION_BURST: { required: false, default: '60', description: 'New sessions one agent may start at once after a quiet period (see AHP_AGENT_NEW_SESSIONS_PER_MIN).' },
  AHP_OPERATOR_RATE_PER_S: {
    required: false,
    default: '50',
    description: 'Operator API calls per second one operator may make on average, over all gateways; more are answered 429 E_RATE_LIMITED with Retry-After. Decimals allowed; 0 switches the limit off.',
  },
  AHP_OPERATOR_BURST: { required: false, default: '200', description: 'Operator API calls one operator may make at once after a quiet period.' },
  AHP_SHUTDOWN_GRACE_MS: { required: false, default: '10000', description: 'On SIGTERM/SIGINT, how long to wait for pending hooks before closing sockets.' },
  AHP_LOG_LEVEL: { required: false, default: 'info', description: 'debug | info | warn | error.' },
  AHP_METRICS_TOKEN: {
    required: false,
    default: undefined,
    description: 'Bearer token that GET /metrics requires (at least 16 characters). Unset: /metrics is served without authentication; keep the port on a private network.',
  },
};

/** Every variable the gateway reads, in schema order, with its default and meaning. */
export function describeConfig(): ConfigVariable[] {
  return (Object.keys(GatewayEnvSchema.shape) as GatewayEnvName[]).map((name) => ({ name, ...VARIABLES[name] }));
}

/** The configuration could not be parsed; `message` names every variable at fault. */
export class GatewayConfigError extends Error {
  readonly issues: readonly { variable: string; message: string }[];

  constructor(issues: readonly { variable: string; message: string }[]) {
    super(`invalid gateway configuration: ${issues.map((issue) => `${issue.variable}: ${issue.message}`).join('; ')}`);
    this.name = 'GatewayConfigError';
    this.issues = issues;
  }
}

/**
 * Parses the gateway's configuration from `env` (only the variables in {@link GatewayEnvSchema}
 * are looked at). Does no I/O: the tokens file is read by the auth service at start.
 *
 * @throws GatewayConfigError naming each bad or missing variable.
 */
export function parseGatewayConfig(env: Readonly<Record<string, string | undefined>> = process.env): GatewayConfig {
  const input: Record<string, string | undefined> = {};
  for (const name of Object.keys(GatewayEnvSchema.shape)) input[name] = env[name];
  const result = GatewayEnvSchema.safeParse(input);
  // One Redis or a cluster: one of the two must name it.
  const noRedis = (input['REDIS_URL'] ?? '').trim() === '' && (input['REDIS_CLUSTER_NODES'] ?? '').trim() === '';
  const missing = noRedis ? [{ variable: 'REDIS_URL', message: 'is required (e.g. redis://127.0.0.1:6379), unless REDIS_CLUSTER_NODES names a Redis Cluster' }] : [];
  if (!result.success || missing.length > 0) {
    throw new GatewayConfigError([
      ...missing,
      ...(result.success ? [] : result.error.issues).map((issue) => {
        const [variable, ...rest] = issue.path.map(String);
        const where = rest.length > 0 ? ` (at ${rest.join('.')})` : '';
        return { variable: variable ?? '(environment)', message: `${issue.message}${where}` };
      }),
    ]);
  }
  const e = result.data;
  // A presence entry must outlive the interval between two refreshes (pongs), or agents that are
  // connected would blink out of the console between heartbeats.
  if (e.AHP_PRESENCE_TTL_MS <= e.AHP_HEARTBEAT_MS) {
    throw new GatewayConfigError([
      { variable: 'AHP_PRESENCE_TTL_MS', message: `must be greater than AHP_HEARTBEAT_MS (${e.AHP_HEARTBEAT_MS})` },
    ]);
  }
  const maxMessageBytes = 2 * e.AHP_MAX_FRAME_BYTES;
  const byteBurst = e.AHP_AGENT_INPUT_BYTE_BURST ?? Math.max(8 * MIB, 8 * e.AHP_MAX_FRAME_BYTES);
  // A message the transport reads must fit in the budget, or the largest accepted frame would
  // close the connection of an agent that sent nothing else.
  if (byteBurst < maxMessageBytes) {
    throw new GatewayConfigError([
      { variable: 'AHP_AGENT_INPUT_BYTE_BURST', message: `must be at least 2 × AHP_MAX_FRAME_BYTES (${maxMessageBytes})` },
    ]);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    redisUrl: e.REDIS_URL,
    redisClusterNodes: e.REDIS_CLUSTER_NODES,
    hookQueueShards: e.AHP_HOOK_QUEUE_SHARDS,
    redisWait: { replicas: e.AHP_REDIS_WAIT_REPLICAS, timeoutMs: e.AHP_REDIS_WAIT_TIMEOUT_MS },
    keyPrefix: e.AHP_KEY_PREFIX,
    gatewayId: e.AHP_GATEWAY_ID ?? defaultGatewayId(),
    agentTokensFile: e.AHP_AGENT_TOKENS_FILE,
    operatorTokensFile: e.AHP_OPERATOR_TOKENS_FILE,
    linkSecret: e.AHP_LINK_SECRET,
    redactionKey: e.AHP_REDACTION_KEY,
    mcpConfigFile: e.AHP_MCP_CONFIG_FILE,
    consoleOrigins: Object.freeze([...(e.AHP_CONSOLE_ORIGINS ?? [])]),
    requestSweepMs: e.AHP_REQUEST_SWEEP_MS,
    agentMaxPendingRequests: e.AHP_AGENT_MAX_PENDING_REQUESTS,
    agentRequestMaxLifetimeMs: e.AHP_AGENT_REQUEST_MAX_LIFETIME_MS,
    inboxMaxMessages: e.AHP_INBOX_MAX_MESSAGES,
    inboxMaxBytes: e.AHP_INBOX_MAX_BYTES,
    hookDeadlineMs: e.AHP_HOOK_DEADLINE_MS,
    hookDeadlines: Object.freeze({ ...(e.AHP_HOOK_DEADLINES ?? {}) }),
    claudeCodeDeadlineMs: e.AHP_CLAUDE_CODE_DEADLINE_MS,
    claudeCodePresenceTtlMs: e.AHP_CLAUDE_CODE_PRESENCE_TTL_MS,
    permissionWaitMs: e.AHP_PERMISSION_WAIT_MS,
    failurePolicies: Object.freeze({ ...(e.AHP_FAILURE_POLICIES ?? {}) }),
    heartbeatMs: e.AHP_HEARTBEAT_MS,
    helloTimeoutMs: e.AHP_HELLO_TIMEOUT_MS,
    presenceTtlMs: e.AHP_PRESENCE_TTL_MS,
    sessionTtlMs: e.AHP_SESSION_TTL_MS,
    maxFrameBytes: e.AHP_MAX_FRAME_BYTES,
    maxMessageBytes,
    inputBudget: {
      framesPerSecond: e.AHP_AGENT_INPUT_FRAMES_PER_S,
      frameBurst: e.AHP_AGENT_INPUT_FRAME_BURST,
      bytesPerSecond: e.AHP_AGENT_INPUT_BYTES_PER_S ?? Math.max(2 * MIB, 2 * e.AHP_MAX_FRAME_BYTES),
      byteBurst,
    },
    maxBufferedBytes: e.AHP_MAX_BUFFERED_BYTES,
    maxInFlight: e.AHP_MAX_IN_FLIGHT,
    fairInFlight: e.AHP_FAIR_IN_FLIGHT,
    agentRatePerSecond: e.AHP_AGENT_RATE_PER_S,
    agentBurst: e.AHP_AGENT_BURST,
    agentRateLease: e.AHP_AGENT_RATE_LEASE,
    agentMaxConnections: e.AHP_AGENT_MAX_CONNECTIONS,
    agentNewSessionsPerMinute: e.AHP_AGENT_NEW_SESSIONS_PER_MIN,
    agentNewSessionBurst: e.AHP_AGENT_NEW_SESSION_BURST,
    operatorRatePerSecond: e.AHP_OPERATOR_RATE_PER_S,
    operatorBurst: e.AHP_OPERATOR_BURST,
    shutdownGraceMs: e.AHP_SHUTDOWN_GRACE_MS,
    logLevel: e.AHP_LOG_LEVEL,
    metricsToken: e.AHP_METRICS_TOKEN,
  };
}

/** The evaluation deadline of `trigger`: its entry in AHP_HOOK_DEADLINES, else AHP_HOOK_DEADLINE_MS. */
export function hookDeadlineFor(config: Pick<GatewayConfig, 'hookDeadlineMs' | 'hookDeadlines'>, trigger: HookTrigger): number {
  return config.hookDeadlines[trigger] ?? config.hookDeadlineMs;
}

/** The longest deadline any trigger has; announced as `max_hook_deadline_ms` (longer requests are shortened to it). */
export function maxHookDeadline(config: Pick<GatewayConfig, 'hookDeadlineMs' | 'hookDeadlines'>): number {
  return Math.max(config.hookDeadlineMs, ...Object.values(config.hookDeadlines));
}

/** The failure policy of `trigger`: its entry in AHP_FAILURE_POLICIES, else the protocol's default. */
export function failurePolicyFor(config: Pick<GatewayConfig, 'failurePolicies'>, trigger: HookTrigger): FailurePolicy {
  return config.failurePolicies[trigger] ?? defaultFailurePolicy(trigger);
}
