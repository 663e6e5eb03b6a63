/**
 * The tool-timeout circuit breaker of docs/spec/circuit-breakers.md#tool-timeout: run a tool as a child process and, when it
 * outlives its `timeout_s`, kill it and answer `E_TIMEOUT`. Node only (it spawns processes), which
 * is why it lives behind the `@ahp/sdk/node` entry point and not on the browser-safe main one.
 */
import { spawn } from 'node:child_process';

/** What to run. */
export interface RunToolOptions {
  /** The executable; it is not run through a shell. */
  readonly command: string;
  /** @defaultValue `[]` */
  readonly args?: readonly string[];
  /** Seconds the tool may run before it is killed; `timeout_s` of docs/spec/circuit-breakers.md#tool-timeout. */
  readonly timeoutS: number;
  /** @defaultValue the current working directory */
  readonly cwd?: string;
  /** @defaultValue the current environment */
  readonly env?: NodeJS.ProcessEnv;
  /** Written to the tool's stdin, which is then closed. @defaultValue nothing (stdin closed at once) */
  readonly stdin?: string;
  /**
   * Bytes kept of each of stdout and stderr; the rest is dropped so a chatty tool cannot exhaust
   * memory. @defaultValue 1 MiB
   */
  readonly maxOutputBytes?: number;
}

/** How the tool ended: it exited (any exit code), or it was killed for running too long. */
export type ToolRunResult =
  | { readonly ok: true; readonly exitCode: number | null; readonly signal: NodeJS.Signals | null; readonly stdout: string; readonly stderr: string }
  | { readonly ok: false; readonly code: 'E_TIMEOUT'; readonly message: string; readonly pid: number | undefined; readonly stdout: string; readonly stderr: string };

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * Runs a tool and resolves when its process is gone. On timeout the whole process group gets
 * SIGKILL (on POSIX the tool runs as a group leader, so a shell's children die with it) and the
 * result is `E_TIMEOUT` with the output collected so far. Rejects only when the process cannot be
 * started (e.g. `ENOENT`).
 */
export function runTool(options: RunToolOptions): Promise<ToolRunResult> {
  if (!(options.timeoutS > 0)) throw new RangeError(`timeoutS must be positive, got ${options.timeoutS}`);
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const ownGroup = process.platform !== 'win32';
  const child = spawn(options.command, [...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env,
    detached: ownGroup,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdout = capped(maxBytes);
  const stderr = capped(maxBytes);
  child.stdout.on('data', stdout.push);
  child.stderr.on('data', stderr.push);
  // A tool that exits without reading its input makes the write fail with EPIPE; that is not an error of ours.
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.stdin ?? '');

  return new Promise((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      kill(child.pid, ownGroup, () => child.kill('SIGKILL'));
    }, options.timeoutS * 1000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      if (timedOut) {
        resolve({
          ok: false,
          code: 'E_TIMEOUT',
          message: `E_TIMEOUT: ${options.command} ran longer than ${options.timeoutS}s and was killed`,
          pid: child.pid,
          stdout: stdout.text(),
          stderr: stderr.text(),
        });
      } else {
        resolve({ ok: true, exitCode, signal, stdout: stdout.text(), stderr: stderr.text() });
      }
    });
  });
}

function kill(pid: number | undefined, group: boolean, fallback: () => void): void {
  if (pid === undefined || !group) return fallback();
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone, or was never formed; kill the child itself.
    fallback();
  }
}

function capped(maxBytes: number): { push: (chunk: Buffer) => void; text: () => string } {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    push: (chunk) => {
      if (size >= maxBytes) return;
      const part = chunk.subarray(0, maxBytes - size);
      chunks.push(part);
      size += part.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}
