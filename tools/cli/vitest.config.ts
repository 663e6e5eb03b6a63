import { projectTestConfig } from '../../vitest.shared.js';

export default projectTestConfig(import.meta.dirname, {
  test: {
    // The CLI runs as a process (dist/cli.js, built before `test` by Nx) against one private Redis; each test uses its own key prefix.
    globalSetup: ['@ahp/embedded-redis/vitest-global-setup'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
