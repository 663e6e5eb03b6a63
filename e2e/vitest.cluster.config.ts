/**
 * The cluster variant of the system tests (`npx nx run @ahp/e2e:test-cluster`, part of `npm test`):
 * the suites below run with `AHP_TEST_REDIS=cluster` (set by the target's script), so the global
 * setup starts a private 3-master Redis Cluster and the harness gives every gateway and worker
 * process `REDIS_CLUSTER_NODES` instead of one Redis. Plus the failover test, which starts a
 * cluster with replicas of its own.
 *
 * Only the suites of the hook path under process failures run here (round trip, several gateways
 * and workers, crashes, failure policies, team protocols, tool approvals): the rest of the system
 * tests exercise features, not the Redis topology, and run once on one Redis (the default config).
 */
import { join } from 'node:path';
import { configDefaults, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

export const CLUSTER_SUITES = [
  'system/hook-round-trip.int.spec.ts',
  'system/multi-gateway.int.spec.ts',
  'system/worker-crash.int.spec.ts',
  'system/gateway-crash.int.spec.ts',
  'system/failure-policy.int.spec.ts',
  'system/team-protocols.int.spec.ts',
  'system/tool-approvals.int.spec.ts',
  'system/config-replay.int.spec.ts',
  // Shadow mode: its scripts (promote touches the live and the shadow keys at once) under Cluster.
  'system/config-shadow.int.spec.ts',
  // Replay and shadow over the same traffic: the replay log, the shadow counters and the replay job under Cluster.
  'system/config-replay-shadow.int.spec.ts',
  'system/cluster-failover.int.spec.ts',
];

const reportDir = process.env['AHP_TEST_REPORT_DIR'];

const config = mergeConfig(base, {
  test: {
    name: '@ahp/e2e:cluster',
    // Its own report file beside the default run's (tools/scripts/summarize-tests.mjs adds up both).
    ...(reportDir ? { outputFile: { json: join(reportDir, '@ahp', 'e2e-cluster.json') } } : {}),
  },
});
// mergeConfig appends arrays; these replace the default run's lists.
config.test = { ...config.test, include: CLUSTER_SUITES, exclude: [...configDefaults.exclude] };
export default config;
