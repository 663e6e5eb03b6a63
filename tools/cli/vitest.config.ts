import { projectTestConfig } from '../../vitest.shared.js';

export default projectTestConfig(import.meta.dirname, {
  test: {
    // The CLI runs as a process (dist/cli.js, built before `test` by Nx) against one private Redis; each test uses its own key prefix.
    globalSetup: ['@ahp/embedded-redis/vitest-global-setup'],
    // A test runs `ahp` as a process several times in a row (1–4 s each: Node's start-up and the
    // command's imports); 30 s was exceeded in CI with two Nx tasks beside it on 2 cores.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
