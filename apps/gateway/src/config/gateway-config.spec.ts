import { describe, expect, it } from 'vitest';
import {
  GatewayConfigError,
  GatewayEnvSchema,
  defaultGatewayId,
  describeConfig,
  failurePolicyFor,
  hookDeadlineFor,
  maxHookDeadline,
  parseGatewayConfig,
} from './gateway-config.js';

const REQUIRED = { REDIS_URL: 'redis://127.0.0.1:1', AHP_AGENT_TOKENS_FILE: '/etc/ahp/agents.json' };

function issuesOf(env: Record<string, string | undefined>): { variable: string; message: string }[] {
  try {
    parseGatewayConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayConfigError);
    return [...(error as GatewayConfigError).issues];
  }
  throw new Error('expected the configuration to be refused');
}

describe('parseGatewayConfig', () => {
  it('applies the documented defaults', () => {
    const config = parseGatewayConfig(REQUIRED);
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      redisUrl: 'redis://127.0.0.1:1',
      keyPrefix: 'ahp',
      agentTokensFile: '/etc/ahp/agents.json',
      operatorTokensFile: undefined,
      linkSecret: undefined,
      requestSweepMs: 1000,
      hookDeadlineMs: 10_000,
      hookDeadlines: {},
      failurePolicies: {},
      heartbeatMs: 15_000,
      helloTimeoutMs: 10_000,
      presenceTtlMs: 45_000,
      sessionTtlMs: 3_600_000,
      maxFrameBytes: 1024 * 1024,
      maxMessageBytes: 2 * 1024 * 1024,
      inputBudget: { framesPerSecond: 200, frameBurst: 1000, bytesPerSecond: 2 * 1024 * 1024, byteBurst: 8 * 1024 * 1024 },
      maxBufferedBytes: 4 * 1024 * 1024,
      maxInFlight: 256,
      shutdownGraceMs: 10_000,
      logLevel: 'info',
      metricsToken: undefined,
    });
    expect(config.gatewayId).toBe(defaultGatewayId());
    expect(config.gatewayId).toMatch(/^gw-[A-Za-z0-9.-]+-\d+$/);
  });

  it('reads every variable', () => {
    const config = parseGatewayConfig({
      ...REQUIRED,
      PORT: '0',
      HOST: '127.0.0.1',
      AHP_KEY_PREFIX: 'ahp:test:x:',
      AHP_GATEWAY_ID: 'gw-a',
      AHP_OPERATOR_TOKENS_FILE: '/etc/ahp/operators.json',
      AHP_REQUEST_SWEEP_MS: '250',
      AHP_HOOK_DEADLINE_MS: '2500',
      AHP_HOOK_DEADLINES: '{"pre-tool-use": 500, "stop": 60000}',
      AHP_FAILURE_POLICIES: '{"post-tool-use": "fail_closed", "pre-tool-use": "fail_open"}',
      AHP_HEARTBEAT_MS: '1000',
      AHP_HELLO_TIMEOUT_MS: '500',
      AHP_PRESENCE_TTL_MS: '3000',
      AHP_SESSION_TTL_MS: '60000',
      AHP_MAX_FRAME_BYTES: '4096',
      AHP_MAX_BUFFERED_BYTES: '131072',
      AHP_MAX_IN_FLIGHT: '4',
      AHP_AGENT_INPUT_FRAMES_PER_S: '50',
      AHP_AGENT_INPUT_FRAME_BURST: '60',
      AHP_AGENT_INPUT_BYTES_PER_S: '10000',
      AHP_AGENT_INPUT_BYTE_BURST: '20000',
      AHP_SHUTDOWN_GRACE_MS: '0',
      AHP_LOG_LEVEL: ' WARN ',
    });
    expect(config).toMatchObject({
      port: 0,
      host: '127.0.0.1',
      keyPrefix: 'ahp:test:x:',
      gatewayId: 'gw-a',
      operatorTokensFile: '/etc/ahp/operators.json',
      linkSecret: undefined,
      requestSweepMs: 250,
      hookDeadlineMs: 2500,
      hookDeadlines: { 'pre-tool-use': 500, stop: 60_000 },
      failurePolicies: { 'post-tool-use': 'fail_closed', 'pre-tool-use': 'fail_open' },
      heartbeatMs: 1000,
      helloTimeoutMs: 500,
      presenceTtlMs: 3000,
      sessionTtlMs: 60_000,
      maxFrameBytes: 4096,
      maxMessageBytes: 8192,
      inputBudget: { framesPerSecond: 50, frameBurst: 60, bytesPerSecond: 10_000, byteBurst: 20_000 },
      maxBufferedBytes: 131_072,
      maxInFlight: 4,
      shutdownGraceMs: 0,
      logLevel: 'warn',
    });
  });

  it('derives the byte budget from the frame limit when that is large, and refuses one that cannot hold the largest message', () => {
    expect(parseGatewayConfig({ ...REQUIRED, AHP_MAX_FRAME_BYTES: '65536' }).inputBudget).toMatchObject({ bytesPerSecond: 2 * 1024 * 1024, byteBurst: 8 * 1024 * 1024 });
    expect(parseGatewayConfig({ ...REQUIRED, AHP_MAX_FRAME_BYTES: String(4 * 1024 * 1024) }).inputBudget).toMatchObject({ bytesPerSecond: 8 * 1024 * 1024, byteBurst: 32 * 1024 * 1024 });
    expect(() => parseGatewayConfig({ ...REQUIRED, AHP_MAX_FRAME_BYTES: '65536', AHP_AGENT_INPUT_BYTE_BURST: '131071' })).toThrow(/AHP_AGENT_INPUT_BYTE_BURST/);
  });

  it('treats empty values as unset', () => {
    const config = parseGatewayConfig({ ...REQUIRED, PORT: '', AHP_HOOK_DEADLINES: ' ', AHP_LOG_LEVEL: '' });
    expect(config.port).toBe(8080);
    expect(config.hookDeadlines).toEqual({});
    expect(config.logLevel).toBe('info');
  });

  it('takes a Redis Cluster from REDIS_CLUSTER_NODES instead of REDIS_URL, with the hook queue shard count', () => {
    const { REDIS_URL: _unused, ...withoutUrl } = REQUIRED;
    const config = parseGatewayConfig({ ...withoutUrl, REDIS_CLUSTER_NODES: '10.0.0.1:7000, 10.0.0.2:7000', AHP_HOOK_QUEUE_SHARDS: '3' });
    expect(config).toMatchObject({ redisUrl: undefined, redisClusterNodes: '10.0.0.1:7000, 10.0.0.2:7000', hookQueueShards: 3 });
    expect(issuesOf({ ...withoutUrl, REDIS_CLUSTER_NODES: 'no-port' }).map((issue) => issue.variable)).toEqual(['REDIS_CLUSTER_NODES']);
  });

  it('names each missing required variable', () => {
    const issues = issuesOf({});
    expect(issues.map((issue) => issue.variable).sort()).toEqual(['AHP_AGENT_TOKENS_FILE', 'REDIS_URL']);
    expect(() => parseGatewayConfig({})).toThrow(/REDIS_URL: is required/);
  });

  it.each([
    ['PORT', '80a', /whole number/],
    ['PORT', '70000', /65535/],
    ['REDIS_URL', 'http://localhost', /redis:\/\//],
    ['AHP_KEY_PREFIX', 'a{b}', /braces/],
    ['AHP_GATEWAY_ID', 'gw one', /letters, digits/],
    ['AHP_HOOK_DEADLINE_MS', '0', />=1|too small/i],
    ['AHP_HOOK_DEADLINES', '{not json', /must be JSON/],
    ['AHP_HOOK_DEADLINES', '{"pre-tool-use": -1}', /too small|>=1/i],
    ['AHP_FAILURE_POLICIES', '{"pre-tool-use": "fail_maybe"}', /fail_closed|fail_open|invalid/i],
    ['AHP_MAX_FRAME_BYTES', '100', /1024|too small/i],
    ['AHP_REQUEST_SWEEP_MS', '10', /50|too small/i],
    ['AHP_LOG_LEVEL', 'chatty', /debug|invalid/i],
    ['AHP_METRICS_TOKEN', 'short', /16 characters/],
  ])('refuses %s=%s, naming the variable', (variable, value, message) => {
    const issues = issuesOf({ ...REQUIRED, [variable]: value });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.variable).toBe(variable);
    expect(issues[0]!.message).toMatch(message);
  });

  it('reads the metrics token, trimmed', () => {
    expect(parseGatewayConfig({ ...REQUIRED, AHP_METRICS_TOKEN: ' scrape-token-0123456789 ' }).metricsToken).toBe('scrape-token-0123456789');
  });

  it('refuses an unknown trigger in the per-trigger tables', () => {
    const issues = issuesOf({ ...REQUIRED, AHP_FAILURE_POLICIES: '{"pre-lunch": "fail_open"}' });
    expect(issues[0]!.variable).toBe('AHP_FAILURE_POLICIES');
  });

  it('requires the presence TTL to outlast the heartbeat', () => {
    const issues = issuesOf({ ...REQUIRED, AHP_HEARTBEAT_MS: '5000', AHP_PRESENCE_TTL_MS: '5000' });
    expect(issues).toEqual([{ variable: 'AHP_PRESENCE_TTL_MS', message: expect.stringMatching(/AHP_HEARTBEAT_MS/) }]);
  });
});

describe('per-trigger settings', () => {
  const config = parseGatewayConfig({
    ...REQUIRED,
    AHP_HOOK_DEADLINE_MS: '1000',
    AHP_HOOK_DEADLINES: '{"stop": 5000}',
    AHP_FAILURE_POLICIES: '{"post-tool-use": "fail_closed"}',
  });

  it('uses the trigger deadline when set, else the default', () => {
    expect(hookDeadlineFor(config, 'stop')).toBe(5000);
    expect(hookDeadlineFor(config, 'pre-tool-use')).toBe(1000);
    expect(maxHookDeadline(config)).toBe(5000);
  });

  it('fails closed for pre-* gates and open otherwise unless configured', () => {
    expect(failurePolicyFor(config, 'pre-tool-use')).toBe('fail_closed');
    expect(failurePolicyFor(config, 'session-start')).toBe('fail_open');
    expect(failurePolicyFor(config, 'post-tool-use')).toBe('fail_closed');
  });
});

describe('describeConfig', () => {
  it('lists every variable of the schema once, with its default', () => {
    const variables = describeConfig();
    expect(variables.map((v) => v.name)).toEqual(Object.keys(GatewayEnvSchema.shape));
    expect(variables.filter((v) => v.required).map((v) => v.name).sort()).toEqual(['AHP_AGENT_TOKENS_FILE', 'REDIS_URL']);
    expect(variables.find((v) => v.name === 'PORT')?.default).toBe('8080');
    for (const variable of variables) expect(variable.description.length).toBeGreaterThan(10);
  });

  it('documents defaults that parse to the same values', () => {
    const env: Record<string, string> = { ...REQUIRED };
    for (const variable of describeConfig()) if (variable.default !== undefined) env[variable.name] = variable.default;
    expect(parseGatewayConfig(env)).toEqual({ ...parseGatewayConfig(REQUIRED), gatewayId: expect.any(String) });
  });
});

describe('defaultGatewayId', () => {
  it('keeps ids within the id alphabet whatever the hostname', () => {
    expect(defaultGatewayId('host_name with spaces', 42)).toBe('gw-host-name-with-spaces-42');
    expect(defaultGatewayId('', 7)).toBe('gw-host-7');
  });
});
