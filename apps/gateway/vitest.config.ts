import swc from 'unplugin-swc';
import { projectTestConfig } from '../../vitest.shared.js';

// Nest resolves constructor dependencies from decorator metadata, which Vite's esbuild transform
// does not emit; SWC does (it reads experimentalDecorators/emitDecoratorMetadata from tsconfig.json).
export default projectTestConfig(import.meta.dirname, {
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: {
    // One private Redis for the run; tests never touch a Redis they did not start.
    globalSetup: ['@ahp/embedded-redis/vitest-global-setup'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
