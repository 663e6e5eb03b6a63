import { describe, expect, it } from 'vitest';
import { createJsonLogger } from './logger.js';
import type { JsonLoggerOptions } from './logger.js';

function capture(options: Omit<JsonLoggerOptions, 'write' | 'now'> = {}) {
  const lines: string[] = [];
  const logger = createJsonLogger({
    ...options,
    write: (line) => lines.push(line),
    now: () => new Date('2025-01-02T03:04:05.000Z'),
  });
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('createJsonLogger', () => {
  it('writes one JSON object per line, fixed keys first, then base and call fields', () => {
    const { logger, lines } = capture({ base: { service: 'oracle-worker', workerId: 'w-1' } });
    logger.info({ correlationId: 'h-1', jobId: 'h-1', skipped: undefined }, 'hook decided');
    expect(lines).toEqual([
      '{"time":"2025-01-02T03:04:05.000Z","level":"info","msg":"hook decided","service":"oracle-worker","workerId":"w-1","correlationId":"h-1","jobId":"h-1"}\n',
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

  it('serialises errors and keeps fields that clash with fixed keys', () => {
    const { logger, parsed } = capture();
    const error = Object.assign(new TypeError('bad'), { code: 'E_X' });
    logger.error({ error, level: 'custom', msg: 'm' }, 'failed');
    const [line] = parsed();
    expect(line).toMatchObject({ level: 'error', msg: 'failed', field_level: 'custom', field_msg: 'm' });
    expect(line!['error']).toMatchObject({ name: 'TypeError', message: 'bad', code: 'E_X', stack: expect.stringContaining('TypeError: bad') });
  });

  it('never throws on fields it cannot serialise, nor on a failing sink', () => {
    const { logger, parsed } = capture();
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    logger.info({ circular, big: 1n }, 'odd fields');
    expect(parsed()[0]).toMatchObject({ msg: 'odd fields', log_error: expect.stringContaining('could not be serialised') });

    const broken = createJsonLogger({
      write: () => {
        throw new Error('EPIPE');
      },
    });
    expect(() => broken.info({}, 'x')).not.toThrow();
  });
});
