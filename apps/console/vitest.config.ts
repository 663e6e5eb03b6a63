import { fileURLToPath } from 'node:url';
import { projectTestConfig } from '../../vitest.shared.js';

export default projectTestConfig(import.meta.dirname, {
  resolve: {
    alias: {
      // The `@/…` path alias of tsconfig.json (Next reads it there; Vitest needs it spelled out).
      '@/': fileURLToPath(new URL('./src/', import.meta.url)),
      // Specs run outside React's server environment, where `server-only` would throw on import:
      // they take its `react-server` export (an empty module), as Next's server bundles do.
      'server-only': fileURLToPath(new URL('../../node_modules/server-only/empty.js', import.meta.url)),
    },
  },
  test: { include: ['src/**/*.spec.ts', 'app/**/*.spec.ts'] },
});
