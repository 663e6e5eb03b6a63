/**
 * `ahp start` and `ahp bench`: the two commands that are whole programs of their own (the main
 * job in tools/stack, the benchmark in tools/bench). `ahp` hands them the rest of the command
 * line untouched, so their options and help are theirs, and passes their exit code on.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIo } from './cli-support.js';

/** The delegated commands: name → the program (relative to the workspace root) and what it does. */
export const DELEGATED_COMMANDS: Readonly<Record<string, { program: string; summary: string }>> = Object.freeze({
  start: { program: 'tools/stack/dist/cli.js', summary: 'start the stack here: Redis, gateways, workers, console, demo fleet (npm start)' },
  bench: { program: 'tools/bench/dist/cli.js', summary: 'run the benchmark against baselines measured in the same run (npm run bench)' },
});

/** The workspace root: this file is tools/cli/dist/delegated-commands.js (or src/ under tests). */
function workspaceRoot(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
}

/**
 * Runs the delegated command `name` with `args`, its output going straight to this terminal, and
 * resolves with its exit code (128 + signal number when a signal ended it). Signals sent to `ahp`
 * (Ctrl-C) reach the child too, since both are in the terminal's process group; `ahp` only waits.
 */
export function runDelegated(name: string, args: readonly string[], io: Pick<CliIo, 'stderr' | 'env'>, root: string = workspaceRoot()): Promise<number> {
  const entry = DELEGATED_COMMANDS[name];
  if (entry === undefined) return Promise.resolve(2);
  const program = join(root, entry.program);
  if (!existsSync(program)) {
    io.stderr.write(`ahp: ${entry.program} is not there: "ahp ${name}" runs from a checkout of the repository, after "npm run build" (or "npm start", which builds what it needs)\n`);
    return Promise.resolve(1);
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [program, ...args], { stdio: 'inherit', env: io.env as NodeJS.ProcessEnv });
    const ignore = (): void => undefined;
    process.on('SIGINT', ignore);
    process.on('SIGTERM', ignore);
    child.once('error', (error) => {
      io.stderr.write(`ahp: could not run ${entry.program}: ${error.message}\n`);
      resolve(1);
    });
    child.once('exit', (code, signal) => {
      process.off('SIGINT', ignore);
      process.off('SIGTERM', ignore);
      resolve(code ?? 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
    });
  });
}
