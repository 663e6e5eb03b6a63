import { describe, expect, it } from 'vitest';
import { checkCompose, dockerfileStages, type AppService } from './check-compose.js';

const dockerfile = `FROM node:20-slim AS build\nRUN true\nFROM build AS runtime\nFROM runtime AS gateway\nFROM runtime as oracle-worker\n`;

const apps: AppService[] = [
  {
    service: 'gateway',
    config: [
      { name: 'REDIS_URL', required: true },
      { name: 'PORT', required: false, default: 8080 },
      { name: 'AHP_AGENT_TOKENS_FILE', required: true },
    ],
  },
  { service: 'oracle-worker', minReplicas: 2, config: [{ name: 'REDIS_URL', required: true }, { name: 'AHP_WORKER_CONCURRENCY', required: false }] },
];

const good = `name: ahp
services:
  redis:
    image: redis:7.2-alpine
    command: ["redis-server", "--appendonly", "yes", "--maxmemory-policy", "noeviction"]
    volumes: [redis-data:/data]
    healthcheck: { test: ["CMD", "redis-cli", "ping"] }
  gateway:
    build: { context: ., target: gateway }
    environment:
      REDIS_URL: redis://redis:6379
      AHP_AGENT_TOKENS_FILE: /run/secrets/agent_tokens
    secrets: [agent_tokens]
    depends_on: { redis: { condition: service_healthy } }
  oracle-worker:
    build: { context: ., target: oracle-worker }
    environment: ["REDIS_URL=redis://redis:6379", "AHP_WORKER_CONCURRENCY=8"]
    depends_on: { redis: { condition: service_healthy } }
    deploy: { replicas: 3 }
secrets:
  agent_tokens: { file: ./.data/agent-tokens.json }
volumes:
  redis-data: {}
`;

const check = (composeText: string) => checkCompose({ composeText, dockerfileText: dockerfile, apps, pathExists: () => true });
const messages = (composeText: string) => check(composeText).map((p) => `${p.line ?? '?'} ${p.path}: ${p.message}`);

describe('dockerfileStages', () => {
  it('collects stage names case-insensitively', () => {
    expect([...dockerfileStages(dockerfile)]).toEqual(['build', 'runtime', 'gateway', 'oracle-worker']);
  });
});

describe('checkCompose', () => {
  it('accepts the production shape', () => {
    expect(check(good)).toEqual([]);
  });

  it('reports YAML syntax errors with their line', () => {
    expect(check('services:\n  redis: {}\n  gateway: {}\n  redis: {}\n')).toEqual([
      { line: 4, path: '(yaml)', message: 'Map keys must be unique' },
    ]);
  });

  it('requires AOF, noeviction, a /data volume and a healthcheck on Redis', () => {
    const bare = good
      .replace('"--appendonly", "yes", ', '')
      .replace('"--maxmemory-policy", "noeviction"', '"--maxmemory-policy", "allkeys-lru"')
      .replace('    volumes: [redis-data:/data]\n', '')
      .replace('    healthcheck: { test: ["CMD", "redis-cli", "ping"] }\n', '');
    expect(messages(bare)).toEqual([
      expect.stringMatching(/^5 services\.redis\.command: Redis must persist with AOF/),
      expect.stringMatching(/^5 services\.redis\.command: Redis must never evict/),
      expect.stringMatching(/services\.redis\.volumes: mount a volume at \/data/),
      expect.stringMatching(/services\.redis\.healthcheck: add a healthcheck/),
    ]);
  });

  it('names an unknown environment variable, with a suggestion, at its line', () => {
    const typo = good.replace('AHP_AGENT_TOKENS_FILE: /run', 'AHP_AGENT_TOKEN_FILE: /run');
    expect(messages(typo)).toEqual([
      '12 services.gateway.environment.AHP_AGENT_TOKEN_FILE: gateway does not read AHP_AGENT_TOKEN_FILE (did you mean AHP_AGENT_TOKENS_FILE?)',
      '11 services.gateway.environment: AHP_AGENT_TOKENS_FILE is required by gateway and not set',
    ]);
  });

  it('checks build targets against the Dockerfile stages', () => {
    expect(messages(good.replace('target: gateway', 'target: gateway-app'))).toEqual([
      expect.stringMatching(/^9 services\.gateway\.build\.target: the Dockerfile has no stage "gateway-app"/),
    ]);
    const noContext = checkCompose({ composeText: good, dockerfileText: dockerfile, apps, pathExists: () => false });
    expect(noContext.map((p) => p.path)).toContain('services.gateway.build.context');
  });

  it('requires Redis by service name, a healthy start order and enough worker replicas', () => {
    const broken = good
      .replace('REDIS_URL: redis://redis:6379', 'REDIS_URL: redis://127.0.0.1:6379')
      .replace('    depends_on: { redis: { condition: service_healthy } }\n    deploy', '    depends_on: [redis]\n    deploy')
      .replace('replicas: 3', 'replicas: 1');
    expect(messages(broken)).toEqual([
      expect.stringMatching(/services\.gateway\.environment\.REDIS_URL: REDIS_URL should reach the "redis" service by name \(found host "127\.0\.0\.1"\)/),
      expect.stringMatching(/services\.oracle-worker\.depends_on: start after Redis is healthy/),
      expect.stringMatching(/services\.oracle-worker\.deploy\.replicas: run at least 2 replicas \(found 1\)/),
    ]);
  });

  it('reports missing services and undeclared secrets and volumes', () => {
    const missing = good.replace(/ {2}oracle-worker:[\s\S]*?replicas: 3 }\n/, '').replace('agent_tokens: { file', 'other: { file').replace('redis-data: {}', 'cache: {}');
    expect(messages(missing)).toEqual([
      expect.stringMatching(/services\.oracle-worker: missing/),
      '6 services.redis.volumes.0: named volume "redis-data" is not declared under top-level volumes',
      '13 services.gateway.secrets.0: secret "agent_tokens" is not declared under top-level secrets',
    ]);
  });
});
