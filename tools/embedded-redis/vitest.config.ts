// The workspace's shared test config (JSON report for the `npm test` summary). It is a root file,
// not a project, which the module-boundaries rule cannot express.
import { projectTestConfig } from '../../vitest.shared.js';

export default projectTestConfig(import.meta.dirname, {
  test: {
    // Dogfooding: this project's tests get their shared Redis the way every other project does
    // (others point at '@ahp/embedded-redis/vitest-global-setup'; here the source is used).
    globalSetup: ['./src/vitest-global-setup.ts'],
    // Starting redis-server takes a moment (tests never wait on fixed delays, only on readiness).
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
