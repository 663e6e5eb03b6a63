import { projectTestConfig } from '../../vitest.shared.js';

// The integration test starts a private Redis, a gateway and an oracle worker (tools/adapter-harness).
export default projectTestConfig(import.meta.dirname, {
  test: {
    globalSetup: ['@ahp/embedded-redis/vitest-global-setup'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
