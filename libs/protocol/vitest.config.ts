import { projectTestConfig } from '../../vitest.shared.js';

// Property and generated-input tests (thousands of cases each) run for seconds on a busy two-core
// machine: the limit stops a hung test, it does not time a fast one.
export default projectTestConfig(import.meta.dirname, { test: { testTimeout: 30_000 } });
