/**
 * The start-up contract of tools/stack's service processes, which the baseline servers follow so
 * the same supervisor (`spawnService`) starts and stops them: one JSON line on stdout when ready,
 * exit on SIGTERM.
 */
export function announceReady(service: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ event: 'ready', service, pid: process.pid, ...fields })}\n`);
}

/** Runs `stop` on SIGTERM or SIGINT, then exits 0 (1 if stopping failed). */
export function exitOnSignal(stop: () => Promise<void> | void): void {
  const handler = () => {
    Promise.resolve()
      .then(stop)
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}
