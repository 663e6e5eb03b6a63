#!/usr/bin/env node
/**
 * `ahp-redis`: prints a Redis URL and keeps that Redis running until SIGINT/SIGTERM. For people;
 * the stack's start script uses `provideRedis()` in-process instead. See USAGE in run-cli.ts.
 */
import { runCli } from './run-cli.js';

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => controller.abort(signal));
}
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
  env: process.env,
});
