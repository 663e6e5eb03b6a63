/**
 * The worker's configuration: environment variables only, parsed once at start by one zod schema.
 * A bad value stops the worker before it touches Redis, with a message naming the variable.
 */
import { hostname } from 'node:os';
import { RedisClusterNodesTextSchema } from '@ahp/protocol';
import { LOG_LEVELS, LogLevelSchema, type LogLevel } from '@ahp/telemetry';
import { z } from 'zod';

const ID_CHARS = /^[A-Za-z0-9._:-]{1,128}$/;

function wholeNumber(min: number, max: number) {
  return z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}

/**
 * The default worker id, `worker-<hostname>-<pid>`: unique per process on a host, and readable in
 * logs and `CLIENT LIST`. Characters outside the protocol's id alphabet become `-`.
 */
export function defaultWorkerId(host: string = hostname(), pid: number = process.pid): string {
  const tail = `-${pid}`;
  const safeHost = host.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 128 - 'worker-'.length - tail.length) || 'host';
  return `worker-${safeHost}${tail}`;
}

/**
 * The environment variables the worker reads, with their defaults. An unknown variable is ignored
 * (the environment holds many others); compose files are checked against these names.
 */
export const ConfigSchema = z.object({
  REDIS_URL: z
    .string()
    .trim()
    .refine((value) => {
      try {
        return ['redis:', 'rediss:'].includes(new URL(value).protocol);
      } catch {
        return false;
      }
    }, 'must be a redis:// or rediss:// URL')
    .optional(),
  REDIS_CLUSTER_NODES: RedisClusterNodesTextSchema.optional(),
  AHP_HOOK_QUEUE_SHARDS: wholeNumber(1, 64).optional(),
  AHP_WORKER_SHARDS: z
    .string()
    .regex(/^\s*\d{1,2}\s*(,\s*\d{1,2}\s*)*$/, 'must be shard indexes such as 0,2')
    .transform((value) => value.split(',').map((part) => Number(part.trim())))
    .optional(),
  AHP_REDIS_WAIT_REPLICAS: wholeNumber(0, 16).default(0),
  AHP_REDIS_WAIT_TIMEOUT_MS: wholeNumber(1, 60_000).default(100),
  AHP_KEY_PREFIX: z
    .string()
    .regex(/^[^\s{}]+$/, 'must be non-empty, without spaces or braces')
    .default('ahp'),
  AHP_WORKER_ID: z
    .string()
    .regex(ID_CHARS, 'must be 1-128 of letters, digits and . _ : -')
    .default(() => defaultWorkerId()),
  AHP_WORKER_CONCURRENCY: wholeNumber(1, 1000).default(16),
  AHP_WORKER_LOCK_MS: wholeNumber(1000, 600_000).default(4_000),
  AHP_WORKER_STALLED_INTERVAL_MS: wholeNumber(500, 600_000).default(2_000),
  AHP_WORKER_MAX_STALLED: wholeNumber(0, 100).default(2),
  AHP_ORACLE_BUDGET_MS: wholeNumber(1, 600_000).default(2_000),
  AHP_LATE_AID_WINDOW_MS: wholeNumber(0, 600_000).default(30_000),
  AHP_ORACLE_PLUGINS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    )
    .default([]),
  AHP_CONFIG_RECHECK_MS: wholeNumber(100, 3_600_000).default(5_000),
  AHP_LOG_LEVEL: LogLevelSchema,
  AHP_WORKER_METRICS_PORT: wholeNumber(0, 65_535).default(9464),
  AHP_WORKER_METRICS_HOST: z.string().trim().min(1).default('0.0.0.0'),
  AHP_METRICS_TOKEN: z.string().trim().min(16, 'must be at least 16 characters').optional(),
  AHP_CONSOLE_URL: z
    .string()
    .trim()
    .refine((value) => {
      try {
        return ['http:', 'https:'].includes(new URL(value).protocol);
      } catch {
        return false;
      }
    }, 'must be an http:// or https:// URL')
    .transform((value) => value.replace(/\/+$/, ''))
    .optional(),
  AHP_NOTIFY_CONCURRENCY: wholeNumber(1, 100).default(4),
  AHP_NOTIFY_ATTEMPTS: wholeNumber(1, 20).default(5),
  AHP_NOTIFY_BACKOFF_MS: wholeNumber(10, 600_000).default(2_000),
  AHP_NOTIFY_TIMEOUT_MS: wholeNumber(100, 60_000).default(10_000),
  AHP_NOTIFY_AGENT_MAX_PER_WINDOW: wholeNumber(1, 10_000).default(10),
  AHP_NOTIFY_AGENT_WINDOW_MS: wholeNumber(1_000, 86_400_000).default(60_000),
  AHP_AGENT_MAX_PENDING_REQUESTS: wholeNumber(1, 100_000).default(100),
  AHP_REPLAY_LOG_MAX_ENTRIES: wholeNumber(0, 10_000_000).default(100_000),
  AHP_REPLAY_LOG_RETENTION_MS: wholeNumber(60_000, 90 * 24 * 3_600_000).default(7 * 24 * 3_600_000),
  AHP_REPLAY_LOG_MAX_CONTEXT_BYTES: wholeNumber(256, 1024 * 1024).default(16 * 1024),
  AHP_REPLAY_CONCURRENCY: wholeNumber(1, 16).default(1),
  AHP_LINK_SECRET: z.string().trim().min(32, 'must be at least 32 characters').optional(),
  AHP_LINK_TTL_MS: wholeNumber(10_000, 86_400_000).default(1_800_000),
  AHP_VAPID_SUBJECT: z
    .string()
    .trim()
    .regex(/^(mailto:\S+@\S+|https:\/\/\S+)$/, 'must be a mailto: address or an https:// URL')
    .default('mailto:ahp@localhost'),
  AHP_PUSH_ALLOW_HTTP: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
});

/** A variable's name. */
export type ConfigVariable = keyof typeof ConfigSchema.shape;

/** What `describeConfig` says about one variable. */
export interface ConfigOptionInfo {
  readonly name: ConfigVariable;
  /** Whether the process refuses to start without it. */
  readonly required: boolean;
  /** The default as text, or `null` when the variable is required. */
  readonly default: string | null;
  readonly description: string;
}

const DOCS: Readonly<Record<ConfigVariable, Omit<ConfigOptionInfo, 'name' | 'required'>>> = {
  REDIS_URL: {
    default: null,
    description:
      'Redis to use, redis[s]://[[user][:password]@]host[:port][/db]. Required unless REDIS_CLUSTER_NODES is set (then only its scheme and credentials are used, for every node, and its host must be one of the listed nodes).',
  },
  REDIS_CLUSTER_NODES: {
    default: '(none: one Redis at REDIS_URL)',
    description: 'host:port,host:port,… of a Redis Cluster to run on instead of one Redis (docs/deploy.md §8).',
  },
  AHP_HOOK_QUEUE_SHARDS: {
    default: '(the deployment\'s stored count; at first start the number of cluster masters, 1 for one Redis)',
    description: 'Number of hook queue shards. Fixed by the first process of a deployment; a different value is refused at start.',
  },
  AHP_WORKER_SHARDS: {
    default: '(every shard)',
    description: 'Hook queue shard indexes this worker consumes, e.g. 0,2. Every shard must be consumed by some worker.',
  },
  AHP_REDIS_WAIT_REPLICAS: {
    default: '0',
    description: 'Replicas that must have a hook\'s decision or a request\'s change before it is routed on (Redis `WAIT` on the master that holds it), so a failover cannot lose a decision an agent already acts on. 0: off (Redis replicates asynchronously). Set it to the replicas each master has.',
  },
  AHP_REDIS_WAIT_TIMEOUT_MS: {
    default: '100',
    description: 'Longest wait for AHP_REDIS_WAIT_REPLICAS per deciding write; when fewer replicas answer in time the write stands and the shortfall is logged.',
  },
  AHP_KEY_PREFIX: {
    default: 'ahp',
    description: 'Prefix of every Redis key, including the BullMQ queue; must match the gateways of the same deployment.',
  },
  AHP_WORKER_ID: {
    default: 'worker-<hostname>-<pid>',
    description: 'Name of this worker in logs, the ready line and the Redis connection name.',
  },
  AHP_WORKER_CONCURRENCY: {
    default: '16',
    description: 'Hook jobs evaluated at once by this process (1-1000). Evaluation mostly waits on I/O.',
  },
  AHP_WORKER_LOCK_MS: {
    default: '4000',
    description: "How long a job's lock lasts without renewal; after a crash its job runs again once the lock expired. With the stalled interval it bounds the takeover time (~4.5 s at 4000/2000, measured), which must fit inside the hook deadline (docs/reliability.md).",
  },
  AHP_WORKER_STALLED_INTERVAL_MS: {
    default: '2000',
    description: 'How often this worker looks for jobs whose lock expired (their worker died) and puts them back.',
  },
  AHP_WORKER_MAX_STALLED: {
    default: '2',
    description: 'How often a job may stall before it fails for good. Re-running a hook is harmless: its first decision wins.',
  },
  AHP_ORACLE_BUDGET_MS: {
    default: '2000',
    description: "Time each oracle gets for one hook; never more than what is left until the hook's deadline.",
  },
  AHP_LATE_AID_WINDOW_MS: {
    default: '30000',
    description: "How long past a post-* hook's deadline its oracles may still run. Aid they produce after the gateway answered the hook (by failure policy) is pushed to the agent as a `signal`. 0 cuts post-* hooks at the deadline like every other trigger.",
  },
  AHP_ORACLE_PLUGINS: {
    default: '(none)',
    description: 'Comma-separated oracle plugin modules: paths (relative to the working directory) or package names. They run after the built-in oracles.',
  },
  AHP_CONFIG_RECHECK_MS: {
    default: '5000',
    description: 'How often the worker re-reads the current hooks configuration version in Redis, in case a publish announcement (pub/sub) was missed.',
  },
  AHP_LOG_LEVEL: {
    default: 'info',
    description: `Least severe level logged: ${LOG_LEVELS.join(', ')}.`,
  },
  AHP_WORKER_METRICS_PORT: {
    default: '9464',
    description: 'Port of the HTTP server with GET /metrics (Prometheus) and GET /healthz. 0 picks a free port, printed in the ready line (metrics_port) and the start-up log; give each worker on one host its own port or 0.',
  },
  AHP_WORKER_METRICS_HOST: {
    default: '0.0.0.0',
    description: 'Interface the metrics and health server listens on.',
  },
  AHP_METRICS_TOKEN: {
    default: '(none)',
    description: 'Bearer token that GET /metrics requires (at least 16 characters). Unset: /metrics is served without authentication; keep the port on a private network. /healthz stays open.',
  },
  AHP_CONSOLE_URL: {
    default: '(none: notifications carry no link)',
    description: "The operators' console, e.g. https://ahp.example.com: notifications link to its approvals page (<url>/approvals). docs/notifications.md.",
  },
  AHP_NOTIFY_CONCURRENCY: {
    default: '4',
    description: 'Notifications delivered at once by this process (its own BullMQ queue, apart from the hook queue).',
  },
  AHP_NOTIFY_ATTEMPTS: {
    default: '5',
    description: 'Attempts of one notification before it goes to the dead-letter list.',
  },
  AHP_NOTIFY_BACKOFF_MS: {
    default: '2000',
    description: 'Delay before the first retry of a notification; each next one doubles.',
  },
  AHP_NOTIFY_TIMEOUT_MS: {
    default: '10000',
    description: 'How long one notification attempt waits for the receiver to answer.',
  },
  AHP_NOTIFY_AGENT_MAX_PER_WINDOW: {
    default: '10',
    description:
      "Requests to operators of one agent notified one by one per window (AHP_NOTIFY_AGENT_WINDOW_MS), counted in Redis for all workers; the next one is notified once as a notice that the agent opens more, the rest of the window's are not notified (they wait in the console). docs/notifications.md.",
  },
  AHP_NOTIFY_AGENT_WINDOW_MS: {
    default: '60000',
    description: "The window of AHP_NOTIFY_AGENT_MAX_PER_WINDOW (fixed windows of this length, by the request's creation time).",
  },
  AHP_AGENT_MAX_PENDING_REQUESTS: {
    default: '100',
    description:
      "Pending requests one agent may have, whoever opened them; set it to the gateways' value. The worker counts the tool approvals rules open: a call whose approval cannot be opened because its agent is at the cap is blocked at once (context.approval.cause too_many_pending). docs/hooks.md.",
  },
  AHP_REPLAY_LOG_MAX_ENTRIES: {
    default: '100000',
    description: 'Evaluated hooks the replay log keeps (docs/hooks.md, "Replay a candidate configuration"), about 1 KB of Redis each; 0 records nothing (replays then find no traffic).',
  },
  AHP_REPLAY_LOG_RETENTION_MS: {
    default: '604800000',
    description: 'Age after which replay log entries are trimmed (7 days by default), whatever their count.',
  },
  AHP_REPLAY_LOG_MAX_CONTEXT_BYTES: {
    default: '16384',
    description: 'Largest hook context (redacted, as JSON) the replay log keeps; a larger one is recorded without its context and skipped by replays.',
  },
  AHP_REPLAY_CONCURRENCY: {
    default: '1',
    description: 'Configuration replays run at once by this process (their own BullMQ queue, apart from the hook queue).',
  },
  AHP_LINK_SECRET: {
    default: '(generated at first start, kept in Redis)',
    description: "The HMAC secret of decision links (at least 32 characters); the same on every gateway and worker. Unset: the first process writes a random one to Redis (<prefix>:notify:link-secret) and all use it.",
  },
  AHP_VAPID_SUBJECT: {
    default: 'mailto:ahp@localhost',
    description: 'The contact push services see in Web Push requests (VAPID "sub"): a mailto: address or an https:// URL of whoever runs this deployment.',
  },
  AHP_PUSH_ALLOW_HTTP: {
    default: 'false',
    description: 'true: Web Push also posts to http:// endpoints. Only for a local push endpoint stub in tests; browsers and push services use https.',
  },
  AHP_LINK_TTL_MS: {
    default: '1800000',
    description: "How long a decision link in a notification can be used (30 min; never past the request's deadline).",
  },
};

/** Every variable, in schema order, with its default and meaning (for docs, `--help` and compose checks). */
export function describeConfig(): ConfigOptionInfo[] {
  return (Object.keys(ConfigSchema.shape) as ConfigVariable[]).map((name) => ({
    name,
    required: DOCS[name].default === null,
    ...DOCS[name],
  }));
}

/** The parsed configuration, in the names the code uses. */
export interface WorkerConfig {
  /** Undefined only with `redisClusterNodes`. */
  readonly redisUrl: string | undefined;
  readonly redisClusterNodes: string | undefined;
  readonly hookQueueShards: number | undefined;
  /** Replica acknowledgements after deciding writes (`AHP_REDIS_WAIT_REPLICAS`, 0 = off) and their timeout. */
  readonly redisWait: { readonly replicas: number; readonly timeoutMs: number };
  /** Shard indexes to consume; undefined: every shard. */
  readonly workerShards: readonly number[] | undefined;
  readonly keyPrefix: string;
  readonly workerId: string;
  readonly concurrency: number;
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
  readonly maxStalledCount: number;
  readonly oracleBudgetMs: number;
  /** See `AHP_LATE_AID_WINDOW_MS`; 0: off. */
  readonly lateAidWindowMs: number;
  readonly oraclePlugins: readonly string[];
  readonly configRecheckMs: number;
  readonly logLevel: LogLevel;
  /** Port of the metrics and health server; 0 picks a free one. */
  readonly metricsPort: number;
  readonly metricsHost: string;
  /** Bearer token `GET /metrics` requires; undefined: open. */
  readonly metricsToken: string | undefined;
  /** Most pending requests one agent may have; the tool approvals rules open count (docs/hooks.md). */
  readonly agentMaxPendingRequests: number;
  /** Notification delivery (docs/notifications.md). */
  readonly notify: {
    /** The console's base URL without a trailing slash; undefined: notifications carry no link. */
    readonly consoleUrl: string | undefined;
    readonly concurrency: number;
    readonly attempts: number;
    readonly backoffMs: number;
    readonly timeoutMs: number;
    /** The decision links' secret; undefined: the one in Redis (generated at first start). */
    readonly linkSecret: string | undefined;
    readonly linkTtlMs: number;
    /** The VAPID subject of Web Push requests. */
    readonly vapidSubject: string;
    /** Web Push to http:// endpoints too (test stubs only). */
    readonly pushAllowHttp: boolean;
    /** Requests of one agent notified one by one per window; the next is a notice, the rest wait in the console. */
    readonly perAgentMax: number;
    readonly perAgentWindowMs: number;
  };
  /** The replay log and replays (docs/hooks.md, "Replay a candidate configuration"). */
  readonly replay: {
    /** 0: nothing is recorded. */
    readonly maxEntries: number;
    readonly retentionMs: number;
    readonly maxContextBytes: number;
    readonly concurrency: number;
  };
}

/** Variables whose values must not be repeated in error messages (they may hold a password). */
const SECRET: ReadonlySet<ConfigVariable> = new Set(['REDIS_URL', 'AHP_METRICS_TOKEN', 'AHP_LINK_SECRET']);

/** The configuration is invalid. `problems` has one entry per offending variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'E_CONFIG';

  constructor(readonly problems: readonly { variable: string; message: string }[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
  }
}

/**
 * Parses the worker's configuration from an environment. A variable set to the empty string
 * counts as unset (compose files often write `VAR=`), so it gets its default.
 *
 * @throws {@link ConfigError} naming every variable that is missing or invalid.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): WorkerConfig {
  const present: Record<string, string> = {};
  for (const name of Object.keys(ConfigSchema.shape)) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') present[name] = value;
  }
  const parsed = ConfigSchema.safeParse(present);
  // One Redis or a cluster: one of the two must name it.
  const noRedis = present['REDIS_URL'] === undefined && present['REDIS_CLUSTER_NODES'] === undefined;
  if (!parsed.success || noRedis) {
    const seen = new Set<string>(noRedis ? ['REDIS_URL'] : []);
    const problems: { variable: string; message: string }[] = noRedis ? [{ variable: 'REDIS_URL', message: 'is required' }] : [];
    for (const issue of parsed.success ? [] : parsed.error.issues) {
      const variable = String(issue.path[0] ?? '(environment)');
      if (seen.has(variable)) continue;
      seen.add(variable);
      const value = present[variable];
      let message = value === undefined ? 'is required' : issue.message;
      if (value !== undefined && !SECRET.has(variable as ConfigVariable)) message += ` (got ${JSON.stringify(value)})`;
      problems.push({ variable, message });
    }
    throw new ConfigError(problems);
  }
  const c = parsed.data;
  return {
    redisUrl: c.REDIS_URL,
    redisClusterNodes: c.REDIS_CLUSTER_NODES,
    hookQueueShards: c.AHP_HOOK_QUEUE_SHARDS,
    redisWait: { replicas: c.AHP_REDIS_WAIT_REPLICAS, timeoutMs: c.AHP_REDIS_WAIT_TIMEOUT_MS },
    workerShards: c.AHP_WORKER_SHARDS,
    keyPrefix: c.AHP_KEY_PREFIX,
    workerId: c.AHP_WORKER_ID,
    concurrency: c.AHP_WORKER_CONCURRENCY,
    lockDurationMs: c.AHP_WORKER_LOCK_MS,
    stalledIntervalMs: c.AHP_WORKER_STALLED_INTERVAL_MS,
    maxStalledCount: c.AHP_WORKER_MAX_STALLED,
    oracleBudgetMs: c.AHP_ORACLE_BUDGET_MS,
    lateAidWindowMs: c.AHP_LATE_AID_WINDOW_MS,
    oraclePlugins: c.AHP_ORACLE_PLUGINS,
    configRecheckMs: c.AHP_CONFIG_RECHECK_MS,
    logLevel: c.AHP_LOG_LEVEL,
    metricsPort: c.AHP_WORKER_METRICS_PORT,
    metricsHost: c.AHP_WORKER_METRICS_HOST,
    metricsToken: c.AHP_METRICS_TOKEN,
    agentMaxPendingRequests: c.AHP_AGENT_MAX_PENDING_REQUESTS,
    notify: {
      consoleUrl: c.AHP_CONSOLE_URL,
      concurrency: c.AHP_NOTIFY_CONCURRENCY,
      attempts: c.AHP_NOTIFY_ATTEMPTS,
      backoffMs: c.AHP_NOTIFY_BACKOFF_MS,
      timeoutMs: c.AHP_NOTIFY_TIMEOUT_MS,
      linkSecret: c.AHP_LINK_SECRET,
      linkTtlMs: c.AHP_LINK_TTL_MS,
      vapidSubject: c.AHP_VAPID_SUBJECT,
      pushAllowHttp: c.AHP_PUSH_ALLOW_HTTP,
      perAgentMax: c.AHP_NOTIFY_AGENT_MAX_PER_WINDOW,
      perAgentWindowMs: c.AHP_NOTIFY_AGENT_WINDOW_MS,
    },
    replay: {
      maxEntries: c.AHP_REPLAY_LOG_MAX_ENTRIES,
      retentionMs: c.AHP_REPLAY_LOG_RETENTION_MS,
      maxContextBytes: c.AHP_REPLAY_LOG_MAX_CONTEXT_BYTES,
      concurrency: c.AHP_REPLAY_CONCURRENCY,
    },
  };
}
