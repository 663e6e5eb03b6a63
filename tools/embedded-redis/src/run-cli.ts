import { parseArgs } from 'node:util';
import { provideRedis, type RedisHandle, type RedisMode } from './provide-redis.js';

/** Where the CLI talks and what ends it; injectable so it can be tested in-process. */
export interface CliIo {
  /** Receives the `REDIS_URL=…` line only, so `ahp-redis | head -1` style capture works. */
  stdout: { write(text: string): unknown };
  /** Receives progress and errors. */
  stderr: { write(text: string): unknown };
  /** Aborting it stops Redis and ends the CLI (the bin wires SIGINT/SIGTERM to it). */
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
}

export const USAGE = `Usage: ahp-redis [--persistent | --ephemeral] [--data-dir DIR] [--port PORT]

Prints REDIS_URL=… for a Redis to use and keeps it running until Ctrl-C (SIGINT) or SIGTERM.
  --persistent      (default) REDIS_URL when set; otherwise a redis-server with its AOF in
                    --data-dir (default: <repo>/.data/redis), reused if already running
  --ephemeral       a throwaway redis-server in a temp folder, removed on exit; ignores REDIS_URL
  --data-dir DIR    persistent data folder
  --port PORT       port to try first (persistent default 6390; falls back to a free port if busy)
  -h, --help        this text
`;

/** Parsed command line. */
interface CliArgs {
  mode: RedisMode;
  dataDir?: string;
  port?: number;
}

function parse(argv: readonly string[]): CliArgs | 'help' {
  const { values, positionals } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: {
      persistent: { type: 'boolean' },
      ephemeral: { type: 'boolean' },
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  if (positionals.length > 0) throw new Error(`unexpected argument: ${positionals[0]}`);
  if (values.persistent && values.ephemeral) throw new Error('choose one of --persistent and --ephemeral');
  const args: CliArgs = { mode: values.ephemeral ? 'ephemeral' : 'persistent' };
  if (values['data-dir'] !== undefined) {
    if (args.mode === 'ephemeral') throw new Error('--data-dir only applies to --persistent');
    args.dataDir = values['data-dir'];
  }
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) throw new Error(`invalid --port: ${values.port}`);
    args.port = port;
  }
  return args;
}

/**
 * Runs the `ahp-redis` command. Resolves with the exit code: 0 after a clean stop (or at once
 * when `REDIS_URL` is used, since there is nothing to keep running), 1 when Redis fails or dies,
 * 2 for a bad command line.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let args: CliArgs | 'help';
  try {
    args = parse(argv);
  } catch (error) {
    io.stderr.write(`ahp-redis: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }

  const say = (line: string): void => {
    io.stderr.write(`${line}\n`);
  };
  let died: ((code: number) => void) | undefined;
  const diedEarly = new Promise<number>((resolve) => (died = resolve));

  let redis: RedisHandle;
  try {
    redis = await provideRedis({
      mode: args.mode,
      env: io.env,
      ...(args.dataDir !== undefined ? { dataDir: args.dataDir } : {}),
      ...(args.port !== undefined ? { port: args.port } : {}),
      log: say,
      onUnexpectedExit: (exit) => {
        // The library has already said that it exited; add what Redis itself said last.
        say(`last lines of the redis log:\n${exit.logTail}`);
        died?.(1);
      },
    });
  } catch (error) {
    say(`ahp-redis: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }

  io.stdout.write(`REDIS_URL=${redis.url}\n`);
  if (!redis.embedded) return 0;

  // Nothing else keeps the event loop alive: Redis runs unref'd so that libraries never hang on it.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  const aborted = new Promise<number>((resolve) => {
    if (io.signal.aborted) resolve(0);
    else io.signal.addEventListener('abort', () => resolve(0), { once: true });
  });
  say(`running; press Ctrl-C to stop`);
  const code = await Promise.race([aborted, diedEarly]);
  clearInterval(keepAlive);
  if (code === 0) say('stopping redis-server…');
  try {
    // Also after an unexpected exit: removes the pid file, or the temp folder when ephemeral.
    await redis.stop();
  } catch (error) {
    say(`ahp-redis: stopping failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  if (code === 0) say('stopped');
  return code;
}
