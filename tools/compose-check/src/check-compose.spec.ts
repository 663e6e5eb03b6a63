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

describe('checkCompose with the cluster profile', () => {
  const clusterApps: AppService[] = [
    ...apps,
    { service: 'gateway-cluster', config: [...(apps[0]?.config ?? []), { name: 'REDIS_CLUSTER_NODES', required: false }] },
    { service: 'oracle-worker-cluster', minReplicas: 2, config: [{ name: 'REDIS_URL', required: true }, { name: 'REDIS_CLUSTER_NODES', required: false }] },
  ];
  const node = (index: number) => `  redis-cluster-${index}:
    image: redis:7.2-alpine
    profiles: [cluster]
    command: ["redis-server", "--cluster-enabled", "yes", "--appendonly", "yes", "--maxmemory-policy", "noeviction"]
    volumes: [redis-cluster-${index}-data:/data]
    healthcheck: { test: ["CMD", "redis-cli", "ping"] }
`;
  const cluster = `${good.replace('secrets:\n  agent_tokens', `${node(1)}${node(2)}${node(3)}  redis-cluster-init:
    image: redis:7.2-alpine
    profiles: [cluster]
    command: ["sh", "-c", "redis-cli --cluster create $$(for n in redis-cluster-1 redis-cluster-2 redis-cluster-3; do getent hosts $$n; done) --cluster-yes"]
    depends_on:
      redis-cluster-1: { condition: service_healthy }
      redis-cluster-2: { condition: service_healthy }
      redis-cluster-3: { condition: service_healthy }
  gateway-cluster:
    build: { context: ., target: gateway }
    profiles: [cluster]
    environment:
      REDIS_CLUSTER_NODES: redis-cluster-1:6379,redis-cluster-2:6379,redis-cluster-3:6379
      AHP_AGENT_TOKENS_FILE: /run/secrets/agent_tokens
    secrets: [agent_tokens]
    depends_on: { redis-cluster-init: { condition: service_completed_successfully } }
  oracle-worker-cluster:
    build: { context: ., target: oracle-worker }
    profiles: [cluster]
    environment: ["REDIS_CLUSTER_NODES=redis-cluster-1:6379"]
    depends_on: { redis-cluster-init: { condition: service_completed_successfully } }
    deploy: { replicas: 3 }
secrets:
  agent_tokens`)}  redis-cluster-1-data: {}
  redis-cluster-2-data: {}
  redis-cluster-3-data: {}
`;
  const checkCluster = (composeText: string) =>
    checkCompose({ composeText, dockerfileText: dockerfile, apps: clusterApps, pathExists: () => true, clusterProfile: { name: 'cluster' } }).map(
      (p) => `${p.path}: ${p.message}`,
    );

  it('accepts three persistent cluster-enabled masters, an init creating the cluster from all, and apps pointed at them', () => {
    expect(checkCluster(cluster)).toEqual([]);
  });

  it('reads YAML merge keys as Compose does', () => {
    const merged = cluster
      .replace('  redis-cluster-1:\n    image', '  redis-cluster-1: &node\n    image')
      .replace(/ {2}redis-cluster-2:\n[\s\S]*?healthcheck: .*\n/, '  redis-cluster-2:\n    <<: *node\n    volumes: [redis-cluster-2-data:/data]\n');
    expect(merged).toContain('<<: *node');
    expect(checkCluster(merged)).toEqual([]);
  });

  it('requires the profile to exist at all', () => {
    expect(checkCluster(good)).toEqual([
      'services.gateway-cluster: missing: every app of the stack runs as a service',
      'services.oracle-worker-cluster: missing: every app of the stack runs as a service',
      'services: no service belongs to the "cluster" profile (the stack on a Redis Cluster)',
    ]);
  });

  it('names a node left out of the cluster, a node not cluster-enabled or not persistent, and a missing init', () => {
    const notEnabled = cluster.replace(
      /(redis-cluster-3:\n[\s\S]*?command: )\[.*\]/,
      '$1["redis-server", "--appendonly", "yes", "--maxmemory-policy", "noeviction"]',
    );
    expect(checkCluster(notEnabled)).toEqual([
      'services: the "cluster" profile has 2 Redis node(s) with --cluster-enabled yes; a cluster that survives losing a master needs at least 3',
      expect.stringMatching(/REDIS_CLUSTER_NODES: "redis-cluster-3:6379" is not a cluster node of the "cluster" profile/),
    ]);
    const noAof = cluster.replace(/(redis-cluster-2:\n[\s\S]*?)"--appendonly", "yes", /, '$1');
    expect(checkCluster(noAof)).toEqual([expect.stringMatching(/^services\.redis-cluster-2\.command: Redis must persist with AOF/)]);
    const leftOut = cluster.replace('for n in redis-cluster-1 redis-cluster-2 redis-cluster-3', 'for n in redis-cluster-1 redis-cluster-2');
    expect(checkCluster(leftOut)).toEqual(['services.redis-cluster-init.command: the cluster is created without node "redis-cluster-3"']);
    const noInit = cluster.replace('redis-cli --cluster create', 'redis-cli ping');
    expect(checkCluster(noInit)).toEqual(['services: the "cluster" profile needs exactly one service that creates the cluster (redis-cli --cluster create …), found 0']);
  });

  it('requires the init to wait for every node, and the apps to wait for the init', () => {
    const hasty = cluster
      .replace('      redis-cluster-3: { condition: service_healthy }\n', '')
      .replace(/(gateway-cluster:[\s\S]*?)depends_on: \{ redis-cluster-init: \{ condition: service_completed_successfully \} \}/, '$1depends_on: [redis-cluster-init]');
    expect(checkCluster(hasty)).toEqual([
      'services.redis-cluster-init.depends_on: create the cluster once "redis-cluster-3" is healthy: depends_on.redis-cluster-3.condition: service_healthy',
      'services.gateway-cluster.depends_on: start once the cluster exists: depends_on.redis-cluster-init.condition: service_completed_successfully',
    ]);
  });

  it('refuses an app of the profile on the single Redis: no REDIS_CLUSTER_NODES, a REDIS_URL of another Redis, a dependency outside the profile', () => {
    const single = cluster.replace(
      '    environment: ["REDIS_CLUSTER_NODES=redis-cluster-1:6379"]\n    depends_on: { redis-cluster-init: { condition: service_completed_successfully } }',
      '    environment: ["REDIS_URL=redis://redis:6379"]\n    depends_on: { redis: { condition: service_healthy }, redis-cluster-init: { condition: service_completed_successfully } }',
    );
    expect(checkCluster(single)).toEqual([
      'services.oracle-worker-cluster.depends_on: depends on "redis", which is not in the "cluster" profile',
      'services.oracle-worker-cluster.environment: set REDIS_CLUSTER_NODES to the cluster\'s nodes (redis-cluster-1:6379,redis-cluster-2:6379,redis-cluster-3:6379)',
    ]);
    const wrongPort = cluster.replace('REDIS_CLUSTER_NODES=redis-cluster-1:6379', 'REDIS_CLUSTER_NODES=redis-cluster-1:7000');
    expect(checkCluster(wrongPort)).toEqual(['services.oracle-worker-cluster.environment.REDIS_CLUSTER_NODES: "redis-cluster-1:7000": redis-cluster-1 listens on 6379']);
    const otherUrl = cluster.replace('REDIS_CLUSTER_NODES=redis-cluster-1:6379', 'REDIS_CLUSTER_NODES=redis-cluster-1:6379", "REDIS_URL=redis://redis:6379');
    expect(checkCluster(otherUrl)).toEqual([
      expect.stringMatching(/^services\.oracle-worker-cluster\.environment\.REDIS_URL: REDIS_URL names "redis", not a node of the cluster/),
    ]);
  });
});
