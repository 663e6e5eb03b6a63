/**
 * `spawn` baseline: the command hook itself, run as `node command-hook.js < event.json` once
 * per event. Deliberately minimal — no imports, one rule — so the figure is the floor of the
 * process-per-event model (process start, read stdin, parse, answer), not of any rule engine.
 */
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => (input += chunk));
process.stdin.on('end', () => {
  const event = JSON.parse(input) as { tool?: { input?: { command?: unknown } } };
  const command = event.tool?.input?.command;
  const denied = typeof command === 'string' && /\brm\s+-[a-zA-Z]*r[a-zA-Z]*\s+(\/|~)(\s|$)/.test(command);
  process.stdout.write(`${JSON.stringify(denied ? { decision: 'block', reason: 'recursive delete of / or ~' } : { decision: 'approve' })}\n`);
});
