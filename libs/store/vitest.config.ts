import { projectTestConfig } from '../../vitest.shared.js';

export default projectTestConfig(import.meta.dirname, {
  test: {
    // One private Redis for the run; every suite isolates itself with a unique key prefix.
    globalSetup: ['@ahp/embedded-redis/vitest-global-setup'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
