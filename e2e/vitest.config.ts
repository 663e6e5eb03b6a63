import { configDefaults } from 'vitest/config';
import { projectTestConfig } from '../vitest.shared.js';

export default projectTestConfig(import.meta.dirname, {
  test: {
    include: ['system/**/*.spec.ts', 'console/**/*.spec.ts'],
    // Tests of Redis Cluster itself (failover) run in the cluster variant only: vitest.cluster.config.ts.
    exclude: [...configDefaults.exclude, 'system/cluster-*.spec.ts'],
    globalSetup: ['@ahp/embedded-redis/vitest-global-setup'],
    // Each file starts its own gateway and worker processes; on two cores they run one file at a time.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
