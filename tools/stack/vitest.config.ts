import { projectTestConfig } from '../../vitest.shared.js';

export default projectTestConfig(import.meta.dirname, {
  test: {
    // The integration tests start real redis-server processes (a cluster of three, a whole stack):
    // seconds when the machine is quiet, several times that beside CI's other Nx tasks on 2 cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
