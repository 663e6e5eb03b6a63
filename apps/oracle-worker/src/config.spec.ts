import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigSchema, defaultWorkerId, describeConfig, loadConfig } from './config.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

function problems(env: Record<string, string | undefined>): { variable: string; message: string }[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).problems];
  }
  throw new Error('expected loadConfig to throw');
}

describe('loadConfig', () => {
  it('fills every default from REDIS_URL alone', () => {
    const config = loadConfig({ REDIS_URL, PATH: '/usr/bin' });
    expect(config).toEqual({
      redisUrl: REDIS_URL,
      redisWait: { replicas: 0, timeoutMs: 100 },
      keyPrefix: 'ahp',
      workerId: defaultWorkerId(),
      concurrency: 16,
      lockDurationMs: 4_000,
      stalledIntervalMs: 2_000,
      maxStalledCount: 2,
      oracleBudgetMs: 2_000,
      lateAidWindowMs: 30_000,
      oraclePlugins: [],
      configRecheckMs: 5_000,
      logLevel: 'info',
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
      metricsToken: undefined,
      agentMaxPendingRequests: 100,
      notify: { consoleUrl: undefined, concurrency: 4, attempts: 5, backoffMs: 2_000, timeoutMs: 10_000, linkSecret: undefined, linkTtlMs: 1_800_000, vapidSubject: 'mailto:ahp@localhost', pushAllowHttp: false, perAgentMax: 10, perAgentWindowMs: 60_000 },
      replay: { maxEntries: 100_000, retentionMs: 604_800_000, maxContextBytes: 16_384, concurrency: 1 },
    });
    expect(config.workerId).toMatch(new RegExp(`^worker-.+-${process.pid}$`));
  });

  it('reads every variable', () => {
    const config = loadConfig({
      REDIS_URL: ' rediss://user:pw@redis.internal:6380/2 ',
      AHP_KEY_PREFIX: 'test-42',
      AHP_REDIS_WAIT_REPLICAS: '1',
      AHP_REDIS_WAIT_TIMEOUT_MS: '250',
      AHP_WORKER_ID: 'w-1',
      AHP_WORKER_CONCURRENCY: '4',
      AHP_WORKER_LOCK_MS: '30000',
      AHP_WORKER_STALLED_INTERVAL_MS: '1000',
      AHP_WORKER_MAX_STALLED: '0',
      AHP_ORACLE_BUDGET_MS: '250',
      AHP_LATE_AID_WINDOW_MS: '0',
      AHP_ORACLE_PLUGINS: ' ./plugins/a.js, @acme/oracles ,,',
      AHP_CONFIG_RECHECK_MS: '250',
      AHP_LOG_LEVEL: 'debug',
      AHP_WORKER_METRICS_PORT: '0',
      AHP_WORKER_METRICS_HOST: '127.0.0.1',
      AHP_METRICS_TOKEN: ' scrape-token-0123456789 ',
      AHP_CONSOLE_URL: 'https://ahp.example.com/console/',
      AHP_NOTIFY_CONCURRENCY: '2',
      AHP_NOTIFY_ATTEMPTS: '3',
      AHP_NOTIFY_BACKOFF_MS: '50',
      AHP_NOTIFY_TIMEOUT_MS: '500',
      AHP_NOTIFY_AGENT_MAX_PER_WINDOW: '3',
      AHP_NOTIFY_AGENT_WINDOW_MS: '30000',
      AHP_AGENT_MAX_PENDING_REQUESTS: '20',
      AHP_REPLAY_LOG_MAX_ENTRIES: '0',
      AHP_REPLAY_LOG_RETENTION_MS: '3600000',
      AHP_REPLAY_LOG_MAX_CONTEXT_BYTES: '4096',
      AHP_REPLAY_CONCURRENCY: '2',
    });
    expect(config).toEqual({
      redisUrl: 'rediss://user:pw@redis.internal:6380/2',
      redisWait: { replicas: 1, timeoutMs: 250 },
      keyPrefix: 'test-42',
      workerId: 'w-1',
      concurrency: 4,
      lockDurationMs: 30_000,
      stalledIntervalMs: 1_000,
      maxStalledCount: 0,
      oracleBudgetMs: 250,
      lateAidWindowMs: 0,
      oraclePlugins: ['./plugins/a.js', '@acme/oracles'],
      configRecheckMs: 250,
      logLevel: 'debug',
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      metricsToken: 'scrape-token-0123456789',
      agentMaxPendingRequests: 20,
      notify: {
        consoleUrl: 'https://ahp.example.com/console',
        concurrency: 2,
        attempts: 3,
        backoffMs: 50,
        timeoutMs: 500,
        linkSecret: undefined,
        linkTtlMs: 1_800_000,
        vapidSubject: 'mailto:ahp@localhost',
        pushAllowHttp: false,
        perAgentMax: 3,
        perAgentWindowMs: 30_000,
      },
      replay: { maxEntries: 0, retentionMs: 3_600_000, maxContextBytes: 4096, concurrency: 2 },
    });
  });

  it('treats empty values as unset', () => {
    const config = loadConfig({ REDIS_URL, AHP_WORKER_CONCURRENCY: '', AHP_LOG_LEVEL: '  ', AHP_ORACLE_PLUGINS: '' });
    expect(config).toMatchObject({ concurrency: 16, logLevel: 'info', oraclePlugins: [] });
  });

  it('takes a Redis Cluster from REDIS_CLUSTER_NODES instead of REDIS_URL, with the shard settings', () => {
    const config = loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7000', AHP_HOOK_QUEUE_SHARDS: '3', AHP_WORKER_SHARDS: '0, 2' });
    expect(config).toMatchObject({ redisUrl: undefined, redisClusterNodes: '10.0.0.1:7000,10.0.0.2:7000', hookQueueShards: 3, workerShards: [0, 2] });
    expect(problems({ REDIS_CLUSTER_NODES: '10.0.0.1' })[0]!.variable).toBe('REDIS_CLUSTER_NODES');
  });

  it('requires REDIS_URL', () => {
    expect(problems({})).toEqual([{ variable: 'REDIS_URL', message: 'is required' }]);
    expect(problems({ REDIS_URL: '' })).toEqual([{ variable: 'REDIS_URL', message: 'is required' }]);
  });

  it('names the variable without repeating a Redis URL that may hold a password', () => {
    expect(problems({ REDIS_URL: 'http://user:secret@host' })).toEqual([
      { variable: 'REDIS_URL', message: 'must be a redis:// or rediss:// URL' },
    ]);
    expect(problems({ REDIS_URL: 'not a url' })[0]!.variable).toBe('REDIS_URL');
  });

  it.each([
    ['AHP_WORKER_CONCURRENCY', 'abc', 'must be a whole number (got "abc")'],
    ['AHP_WORKER_CONCURRENCY', '0', 'must be at least 1 (got "0")'],
    ['AHP_WORKER_CONCURRENCY', '2.5', 'must be a whole number'],
    ['AHP_WORKER_CONCURRENCY', '-3', 'must be a whole number'],
    ['AHP_WORKER_LOCK_MS', '999', 'must be at least 1000'],
    ['AHP_WORKER_STALLED_INTERVAL_MS', '10', 'must be at least 500'],
    ['AHP_WORKER_MAX_STALLED', '101', 'must be at most 100'],
    ['AHP_ORACLE_BUDGET_MS', '1e3', 'must be a whole number'],
    ['AHP_LOG_LEVEL', 'verbose', 'must be one of debug, info, warn, error (got "verbose")'],
    ['AHP_KEY_PREFIX', 'a {b}', 'must be non-empty, without spaces or braces'],
    ['AHP_WORKER_ID', 'worker one', 'must be 1-128 of letters, digits and . _ : -'],
    ['AHP_WORKER_METRICS_PORT', '65536', 'must be at most 65535'],
  ])('rejects %s=%s', (variable, value, message) => {
    const [problem, ...rest] = problems({ REDIS_URL, [variable]: value });
    expect(rest).toEqual([]);
    expect(problem!.variable).toBe(variable);
    expect(problem!.message).toContain(message);
  });

  it('reports every bad variable at once, in a message that names them', () => {
    let message = '';
    try {
      loadConfig({ AHP_WORKER_CONCURRENCY: 'many', AHP_LOG_LEVEL: 'loud' });
    } catch (error) {
      message = (error as Error).message;
      expect((error as ConfigError).code).toBe('E_CONFIG');
    }
    expect(message).toBe(
      [
        'invalid configuration:',
        '  REDIS_URL: is required',
        '  AHP_WORKER_CONCURRENCY: must be a whole number (got "many")',
        '  AHP_LOG_LEVEL: must be one of debug, info, warn, error (got "loud")',
      ].join('\n'),
    );
  });
});

describe('defaultWorkerId', () => {
  it('keeps ids within the protocol alphabet and length', () => {
    expect(defaultWorkerId('box-1.local', 42)).toBe('worker-box-1.local-42');
    expect(defaultWorkerId('weird host/ü', 7)).toBe('worker-weird-host---7');
    expect(defaultWorkerId('', 7)).toBe('worker-host-7');
    const long = defaultWorkerId('h'.repeat(300), 123456);
    expect(long).toHaveLength(128);
    expect(long.endsWith('-123456')).toBe(true);
  });
});

describe('describeConfig', () => {
  it('documents every variable of the schema, with its default', () => {
    const described = describeConfig();
    expect(described.map((o) => o.name)).toEqual(Object.keys(ConfigSchema.shape));
    expect(described.map((o) => o.name)).toEqual([
      'REDIS_URL',
      'REDIS_CLUSTER_NODES',
      'AHP_HOOK_QUEUE_SHARDS',
      'AHP_WORKER_SHARDS',
      'AHP_REDIS_WAIT_REPLICAS',
      'AHP_REDIS_WAIT_TIMEOUT_MS',
      'AHP_KEY_PREFIX',
      'AHP_WORKER_ID',
      'AHP_WORKER_CONCURRENCY',
      'AHP_WORKER_LOCK_MS',
      'AHP_WORKER_STALLED_INTERVAL_MS',
      'AHP_WORKER_MAX_STALLED',
      'AHP_ORACLE_BUDGET_MS',
      'AHP_LATE_AID_WINDOW_MS',
      'AHP_ORACLE_PLUGINS',
      'AHP_CONFIG_RECHECK_MS',
      'AHP_LOG_LEVEL',
      'AHP_WORKER_METRICS_PORT',
      'AHP_WORKER_METRICS_HOST',
      'AHP_METRICS_TOKEN',
      'AHP_CONSOLE_URL',
      'AHP_NOTIFY_CONCURRENCY',
      'AHP_NOTIFY_ATTEMPTS',
      'AHP_NOTIFY_BACKOFF_MS',
      'AHP_NOTIFY_TIMEOUT_MS',
      'AHP_NOTIFY_AGENT_MAX_PER_WINDOW',
      'AHP_NOTIFY_AGENT_WINDOW_MS',
      'AHP_AGENT_MAX_PENDING_REQUESTS',
      'AHP_REPLAY_LOG_MAX_ENTRIES',
      'AHP_REPLAY_LOG_RETENTION_MS',
      'AHP_REPLAY_LOG_MAX_CONTEXT_BYTES',
      'AHP_REPLAY_CONCURRENCY',
      'AHP_LINK_SECRET',
      'AHP_LINK_TTL_MS',
      'AHP_VAPID_SUBJECT',
      'AHP_PUSH_ALLOW_HTTP',
    ]);
    for (const option of described) expect(option.description.length).toBeGreaterThan(10);
    expect(described.find((o) => o.name === 'REDIS_URL')!.default).toBeNull();
    expect(described.filter((o) => o.required).map((o) => o.name)).toEqual(['REDIS_URL']);
  });

  it('states the defaults the schema applies', () => {
    const parsed = loadConfig({ REDIS_URL });
    const defaults = Object.fromEntries(describeConfig().map((o) => [o.name, o.default]));
    expect(defaults).toMatchObject({
      AHP_KEY_PREFIX: parsed.keyPrefix,
      AHP_WORKER_CONCURRENCY: String(parsed.concurrency),
      AHP_WORKER_LOCK_MS: String(parsed.lockDurationMs),
      AHP_WORKER_STALLED_INTERVAL_MS: String(parsed.stalledIntervalMs),
      AHP_WORKER_MAX_STALLED: String(parsed.maxStalledCount),
      AHP_ORACLE_BUDGET_MS: String(parsed.oracleBudgetMs),
      AHP_CONFIG_RECHECK_MS: String(parsed.configRecheckMs),
      AHP_LOG_LEVEL: parsed.logLevel,
      AHP_WORKER_METRICS_PORT: String(parsed.metricsPort),
      AHP_WORKER_METRICS_HOST: parsed.metricsHost,
      AHP_REPLAY_LOG_MAX_ENTRIES: String(parsed.replay.maxEntries),
      AHP_REPLAY_LOG_RETENTION_MS: String(parsed.replay.retentionMs),
      AHP_REPLAY_LOG_MAX_CONTEXT_BYTES: String(parsed.replay.maxContextBytes),
      AHP_REPLAY_CONCURRENCY: String(parsed.replay.concurrency),
    });
  });

  it('never repeats the metrics token in an error', () => {
    expect(problems({ REDIS_URL, AHP_METRICS_TOKEN: 'short-secret' })).toEqual([{ variable: 'AHP_METRICS_TOKEN', message: 'must be at least 16 characters' }]);
  });
});
