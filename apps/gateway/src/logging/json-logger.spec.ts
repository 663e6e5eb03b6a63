import { REDACTED } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { JsonLogger, NestLoggerBridge, type JsonLoggerOptions } from './json-logger.js';

function capture(options: Omit<JsonLoggerOptions, 'write'> = {}) {
  const lines: string[] = [];
  const logger = new JsonLogger({ ...options, write: (line) => lines.push(line) });
  return { logger, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('JsonLogger', () => {
  it('writes one JSON object per line, without the newline: level name, ISO time, bindings, fields, msg', () => {
    const { logger, lines, parsed } = capture({ bindings: { service: 'gateway', gatewayId: 'gw-1' } });
    logger.info({ agentId: 'a-1', sessionId: 's-1', correlationId: 'h-1', jobId: 'h-1', unset: undefined }, 'hook received');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(false);
    const [line] = parsed();
    expect(Object.keys(line!)).toEqual(['level', 'time', 'service', 'gatewayId', 'agentId', 'sessionId', 'correlationId', 'jobId', 'msg']);
    expect(line).toMatchObject({ level: 'info', service: 'gateway', gatewayId: 'gw-1', agentId: 'a-1', msg: 'hook received' });
    expect(new Date(line!['time'] as string).toISOString()).toBe(line!['time']);
  });

  it('filters by level and says which levels are enabled', () => {
    const { logger, parsed } = capture({ level: 'warn' });
    logger.debug({}, 'd');
    logger.info({}, 'i');
    logger.warn({}, 'w');
    logger.error({}, 'e');
    expect(parsed().map((line) => line['level'])).toEqual(['warn', 'error']);
    expect([logger.isEnabled('info'), logger.isEnabled('warn')]).toEqual([false, true]);
  });

  it('adds child bindings to the child only, keeping the level', () => {
    const { logger, parsed } = capture({ level: 'info', bindings: { service: 'gateway' } });
    const child = logger.child({ component: 'hooks' });
    child.debug({}, 'hidden');
    child.info({ agentId: 'a-1' }, 'from child');
    logger.info({}, 'from parent');
    expect(parsed().map(({ time: _time, ...rest }) => rest)).toEqual([
      { level: 'info', service: 'gateway', component: 'hooks', agentId: 'a-1', msg: 'from child' },
      { level: 'info', service: 'gateway', msg: 'from parent' },
    ]);
  });

  it('serializes errors with name, message, code and stack, and renames fields that clash with fixed keys', () => {
    const { logger, parsed } = capture();
    const error = Object.assign(new RangeError('out of range'), { code: 'E_RANGE' });
    logger.error({ error, msg: 'shadow', level: 'shadow' }, 'failed');
    const [line] = parsed();
    expect(line).toMatchObject({ level: 'error', msg: 'failed', field_msg: 'shadow', field_level: 'shadow' });
    expect(line!['error']).toEqual({ name: 'RangeError', message: 'out of range', code: 'E_RANGE', stack: expect.stringContaining('RangeError: out of range') });
  });

  it('redacts secrets at any depth, in text, in the message and in child bindings', () => {
    const { logger, lines } = capture({ bindings: { service: 'gateway' } });
    logger
      .child({ token: 'secret-token-0' })
      .warn(
        { token: 'secret-token-1', request: { headers: { authorization: 'Bearer secret-token-2' } }, url: 'ws://gw/v1/agents?token=secret-token-3', agentId: 'alpha' },
        'upgrade with Bearer secret-token-4',
      );
    expect(lines.join('\n')).not.toMatch(/secret-token/);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      token: REDACTED,
      request: { headers: { authorization: REDACTED } },
      url: `ws://gw/v1/agents?token=${REDACTED}`,
      agentId: 'alpha',
      msg: `upgrade with Bearer ${REDACTED}`,
    });
  });

  it('carries Nest messages with their context, and Nest errors with their stack', () => {
    const { logger, parsed } = capture({ level: 'debug' });
    const bridge = new NestLoggerBridge(logger);
    bridge.log('Mapped {/healthz, GET} route', 'RouterExplorer');
    bridge.error('boom', 'Error: boom\n    at here', 'ExceptionsHandler');
    expect(parsed()).toEqual([
      expect.objectContaining({ level: 'debug', msg: 'Mapped {/healthz, GET} route', context: 'RouterExplorer' }),
      expect.objectContaining({ level: 'error', msg: 'boom', context: 'ExceptionsHandler', stack: 'Error: boom\n    at here' }),
    ]);
  });
});
