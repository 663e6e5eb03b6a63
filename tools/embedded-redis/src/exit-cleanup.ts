/**
 * Keeps Redis children from outliving this process.
 *
 * - On `exit` (normal end, `process.exit()`), only synchronous work is possible: each entry's
 *   `onExit` runs (send a signal to the child, remove a temp folder).
 * - On SIGINT/SIGTERM/SIGHUP, what happens depends on who else listens. When the application
 *   has its own handler, it owns the shutdown order (drain workers, then stop Redis) and we do
 *   nothing beyond the `exit` safety net. When nobody else listens, Node would die at once
 *   without an `exit` event, so we run each entry's async `onSignal`, then re-raise the signal
 *   so the process still ends the way it would have.
 *
 * Listeners are installed with the first entry and removed with the last one.
 */

/** What to do for one Redis instance when the process goes away. */
export interface CleanupEntry {
  /** Synchronous last resort, run from the `exit` event. Must not throw. */
  onExit(): void;
  /** Graceful cleanup on a signal nobody else handles. */
  onSignal(): Promise<void>;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type HandledSignal = (typeof SIGNALS)[number];

const entries = new Set<CleanupEntry>();
let installed = false;
let signalling = false;

function onProcessExit(): void {
  for (const entry of entries) {
    try {
      entry.onExit();
    } catch {
      // Nothing useful can be done while exiting.
    }
  }
  entries.clear();
}

const signalHandlers = new Map<HandledSignal, () => void>(
  SIGNALS.map((signal) => [
    signal,
    () => {
      // Someone else handles this signal: they decide when to stop Redis.
      if (process.listenerCount(signal) > 1 || signalling) return;
      signalling = true;
      void Promise.allSettled([...entries].map((entry) => entry.onSignal())).then(() => {
        uninstall();
        onProcessExit();
        process.kill(process.pid, signal);
      });
    },
  ]),
);

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', onProcessExit);
  for (const [signal, handler] of signalHandlers) process.on(signal, handler);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', onProcessExit);
  for (const [signal, handler] of signalHandlers) process.off(signal, handler);
}

/**
 * Registers an instance for cleanup when the process ends.
 * @returns a function that unregisters it (call it once the instance was stopped on purpose).
 */
export function registerCleanup(entry: CleanupEntry): () => void {
  entries.add(entry);
  install();
  return () => {
    entries.delete(entry);
    if (entries.size === 0) uninstall();
  };
}

/** Number of instances currently registered (for tests and diagnostics). */
export function registeredCleanupCount(): number {
  return entries.size;
}
