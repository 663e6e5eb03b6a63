/**
 * A command hook as today's coding agents run it — a fresh Node process per event, the event on
 * its stdin, the decision on its stdout (`node hook.js < event.json`). The `spawn` baseline runs
 * the minimal hook script; the `command-hook` phase runs `ahp hook claude-code` the same way.
 */
import { spawn } from 'node:child_process';
import { hookEvent } from '../../workload/hook-events.js';
import type { TargetSpec } from '../protocol.js';
import { codedError, type LoadTarget } from './target.js';

export function openSpawnTarget(spec: Extract<TargetSpec, { name: 'spawn' }>): LoadTarget {
  const input = spec.input ?? JSON.stringify({ hook_event_name: 'PreToolUse', ...hookEvent(0).context });
  const args = [spec.script, ...(spec.args ?? [])];
  const env = spec.env === undefined ? process.env : { ...process.env, ...spec.env };
  return {
    report: { connections: 0, failed: 0, failures: [] },
    op: () =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], env });
        let output = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
        child.once('error', reject);
        child.once('close', (code) => {
          try {
            if (code !== 0) throw codedError('E_EXIT', `hook exited with ${String(code)}`);
            JSON.parse(output);
            resolve();
          } catch (error) {
            reject(error instanceof Error && 'code' in error ? error : codedError('E_OUTPUT', 'hook printed no JSON decision'));
          }
        });
        child.stdin.end(input);
      }),
    close: async () => undefined,
  };
}
