/**
 * Preloaded into the gateway for the memory phase (`node --expose-gc --import <this file>`): on
 * SIGUSR2 it collects garbage and prints one line on stderr with the process's memory, which the
 * orchestrator picks out of the gateway's output. The gateway itself is not changed; this only
 * adds a signal handler, and signals are the only way it is triggered.
 */
import { MEMORY_PROBE_TAG } from '../shared/memory-probe-line.js';

const gc = (globalThis as { gc?: () => void }).gc;

process.on('SIGUSR2', () => {
  // Twice: the first pass can leave objects that only a second full collection frees (weak
  // callbacks, finalizers).
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  process.stderr.write(`${MEMORY_PROBE_TAG} ${JSON.stringify({ ...usage, gcAvailable: gc !== undefined })}\n`);
});
