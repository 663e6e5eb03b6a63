import { projectTestConfig } from '../../vitest.shared.js';

export default projectTestConfig(import.meta.dirname, {
  test: { include: ['src/**/*.spec.ts', 'app/**/*.spec.ts'] },
});
