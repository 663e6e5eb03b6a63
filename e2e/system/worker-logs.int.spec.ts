// Starts: a Node process that loads the built logger of the oracle worker and the gateway
// (@ahp/telemetry's JsonLogger, libs/telemetry/dist) and logs to its real stderr, a pipe read by
// this test. The logger buffers its lines
// instead of one write per line; these checks hold it to what operators rely on: a line shows up
// soon while the process runs on, and nothing buffered is lost when the process exits.
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const LOGGER = pathToFileURL(fileURLToPath(new URL('../../libs/telemetry/dist/index.js', import.meta.url))).href;

interface Child {
  /** Resolves with the first stderr line whose `msg` is `msg`, parsed. */
  line(msg: string): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; lines: Record<string, unknown>[] }>;
  kill(): void;
}

/** Runs `body` as an ES module with `log` bound to the worker's default (stderr) logger. */
function runWithWorkerLogger(body: string): Child {
  const script = `import { JsonLogger } from ${JSON.stringify(LOGGER)};\nconst log = new JsonLogger({ bindings: { service: 'oracle-worker' } });\n${body}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const waiting: { msg: string; resolve: (line: Record<string, unknown>) => void }[] = [];
  let rest = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const text of parts) {
      if (text === '') continue;
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      for (const waiter of waiting.filter((w) => w.msg === line['msg'])) waiter.resolve(line);
    }
  });
  const exited = new Promise<{ code: number | null; lines: Record<string, unknown>[] }>((resolve) =>
    child.once('close', (code) => resolve({ code, lines })),
  );
  return {
    line: (msg) =>
      new Promise((resolve) => {
        const seen = lines.find((line) => line['msg'] === msg);
        if (seen !== undefined) resolve(seen);
        else waiting.push({ msg, resolve });
      }),
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}

describe('the oracle worker log on stderr', () => {
  it('delivers a lone line while the process keeps running (the buffer is flushed on a timer, not only when full)', async () => {
    const child = runWithWorkerLogger(`log.info({ jobId: 'h-1' }, 'hook decided');\nsetInterval(() => {}, 1000);`);
    try {
      const line = await child.line('hook decided');
      expect(line).toMatchObject({ level: 'info', service: 'oracle-worker', jobId: 'h-1' });
    } finally {
      child.kill();
      await child.exited;
    }
  });

  it('writes every buffered line when the process exits right after logging, as the fatal-error path does', async () => {
    const child = runWithWorkerLogger(
      `for (let i = 0; i < 500; i++) log.info({ n: i }, 'hook decided');\nlog.error({ error: new Error('boom') }, 'uncaught exception; exiting');\nprocess.exit(3);`,
    );
    const { code, lines } = await child.exited;
    expect(code).toBe(3);
    expect(lines.filter((line) => line['msg'] === 'hook decided').map((line) => line['n'])).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(lines.at(-1)).toMatchObject({ level: 'error', msg: 'uncaught exception; exiting' });
  });
});
