import { REDACTED } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { JsonLogger, LogLevelSchema, type JsonLoggerOptions } from './json-logger.js';

function capture(options: Omit<JsonLoggerOptions, 'write' | 'now'> = {}) {
  const lines: string[] = [];
  const logger = new JsonLogger({
    ...options,
    write: (line) => lines.push(line),
    now: () => new Date('2025-01-02T03:04:05.000Z'),
  });
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const createCapture = capture;

describe('JsonLogger', () => {
  it('writes one JSON object per line, without the newline: level name, ISO time, bindings, call fields, msg', () => {
    const { logger, lines } = capture({ bindings: { service: 'oracle-worker', workerId: 'w-1' } });
    logger.info({ agentId: 'a-1', sessionId: 's-1', correlationId: 'h-1', jobId: 'h-1', skipped: undefined }, 'hook decided');
    expect(lines).toEqual([
      '{"level":"info","time":"2025-01-02T03:04:05.000Z","service":"oracle-worker","workerId":"w-1","agentId":"a-1","sessionId":"s-1","correlationId":"h-1","jobId":"h-1","msg":"hook decided"}',
    ]);
  });

  it('drops lines below its level', () => {
    const { logger, parsed } = capture({ level: 'warn' });
    logger.debug({}, 'd');
    logger.info({}, 'i');
    logger.warn({}, 'w');
    logger.error({}, 'e');
    expect(parsed().map((l) => l['level'])).toEqual(['warn', 'error']);
  });

  it('defaults to info', () => {
    const { logger, parsed } = capture();
    logger.debug({}, 'd');
    logger.info({}, 'i');
    expect(parsed().map((l) => l['msg'])).toEqual(['i']);
  });

  it('adds child bindings to every line of the child, and not to the parent', () => {
    const { logger, parsed } = capture({ bindings: { service: 'oracle-worker' } });
    const child = logger.child({ component: 'hooks-config' });
    child.child({ configVersion: 3 }).warn({ jobId: 'j-1' }, 'nested');
    logger.info({}, 'parent');
    expect(parsed()).toEqual([
      { level: 'warn', time: '2025-01-02T03:04:05.000Z', service: 'oracle-worker', component: 'hooks-config', configVersion: 3, jobId: 'j-1', msg: 'nested' },
      { level: 'info', time: '2025-01-02T03:04:05.000Z', service: 'oracle-worker', msg: 'parent' },
    ]);
  });

  it('serialises errors with message, stack and cause, and keeps fields that clash with fixed keys', () => {
    const { logger, parsed } = capture();
    const error = Object.assign(new TypeError('bad', { cause: new Error('root cause') }), { code: 'E_X' });
    logger.error({ error, level: 'custom', msg: 'm', time: 't' }, 'failed');
    const [line] = parsed();
    expect(line).toMatchObject({ level: 'error', msg: 'failed', field_level: 'custom', field_msg: 'm', field_time: 't' });
    expect(line!['error']).toMatchObject({
      name: 'TypeError',
      message: 'bad',
      code: 'E_X',
      stack: expect.stringContaining('TypeError: bad'),
      cause: { name: 'Error', message: 'root cause', stack: expect.stringContaining('root cause') },
    });
  });

  it('redacts secret fields at any depth, credentials inside text and in the message', () => {
    const { logger, lines, parsed } = capture();
    logger.info(
      {
        token: 'tok-123',
        headers: { authorization: 'Bearer abc' },
        db: { nested: { password: 'pw-1' } },
        api_key: 'k',
        secret: 's',
        githubToken: 'gh-1',
        redisUrl: 'redis://user:pw-2@redis:6379',
        error: new Error('connect failed: redis://user:pw-3@redis:6379'),
        agentId: 'a-1',
        tokensFile: '/etc/ahp/agents.json',
      },
      'sending Authorization: Bearer tok-456',
    );
    expect(lines[0]).not.toMatch(/tok-123|Bearer abc|pw-1|pw-2|pw-3|gh-1|tok-456/);
    expect(parsed()[0]).toMatchObject({
      token: REDACTED,
      headers: { authorization: REDACTED },
      db: { nested: { password: REDACTED } },
      api_key: REDACTED,
      secret: REDACTED,
      githubToken: REDACTED,
      redisUrl: `redis://user:${REDACTED}@redis:6379`,
      error: { message: `connect failed: redis://user:${REDACTED}@redis:6379` },
      agentId: 'a-1',
      tokensFile: '/etc/ahp/agents.json',
      msg: `sending Authorization: Bearer ${REDACTED}`,
    });
  });

  it('redacts secrets in base fields and child bindings', () => {
    const { logger, lines } = createCapture({ bindings: { service: 'oracle-worker', password: 'base-secret' } });
    logger.child({ apiKey: 'child-secret' }).info({}, 'x');
    expect(lines[0]).not.toMatch(/base-secret|child-secret/);
    expect(JSON.parse(lines[0]!)).toMatchObject({ service: 'oracle-worker', password: REDACTED, apiKey: REDACTED });
  });

  it('never throws on fields it cannot serialise, nor on a failing sink', () => {
    const { logger, parsed } = capture();
    const circular: Record<string, unknown> = { name: 'loop' };
    circular['self'] = circular;
    logger.info({ circular, big: 1n }, 'odd fields');
    expect(parsed()[0]).toMatchObject({ msg: 'odd fields', circular: { name: 'loop' }, big: 1 });
    expect(JSON.stringify(parsed()[0])).toContain('[Circular]');

    const broken = new JsonLogger({
      write: () => {
        throw new Error('EPIPE');
      },
    });
    expect(() => broken.info({}, 'x')).not.toThrow();
  });
});

describe('LogLevelSchema', () => {
  it('reads AHP_LOG_LEVEL in any case and with blanks around it; blank or unset is info', () => {
    expect([' WARN ', 'debug', '', '  ', undefined].map((value) => LogLevelSchema.parse(value))).toEqual(['warn', 'debug', 'info', 'info', 'info']);
  });

  it('names the levels when it refuses one', () => {
    const result = LogLevelSchema.safeParse('verbose');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('must be one of debug, info, warn, error');
  });
});
