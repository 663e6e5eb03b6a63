import { describe, expect, it } from 'vitest';
import { ConsoleEnvError, parseConsoleEnv } from './console-env';

describe('parseConsoleEnv', () => {
  it('defaults to a gateway on this machine', () => {
    expect(parseConsoleEnv({})).toEqual({ gatewayUrl: 'http://127.0.0.1:8080' });
    expect(parseConsoleEnv({ AHP_GATEWAY_URL: ' ' })).toEqual({ gatewayUrl: 'http://127.0.0.1:8080' });
  });

  it('keeps a base path and drops trailing slashes', () => {
    expect(parseConsoleEnv({ AHP_GATEWAY_URL: 'https://gw.example.com/ahp/' })).toEqual({ gatewayUrl: 'https://gw.example.com/ahp' });
  });

  it('names the variable when it is malformed', () => {
    expect(() => parseConsoleEnv({ AHP_GATEWAY_URL: 'gw:8080' })).toThrow(ConsoleEnvError);
    expect(() => parseConsoleEnv({ AHP_GATEWAY_URL: 'not a url' })).toThrow(/AHP_GATEWAY_URL/);
    expect(() => parseConsoleEnv({ AHP_GATEWAY_URL: 'ws://gw:8080' })).toThrow(/AHP_GATEWAY_URL/);
    expect(() => parseConsoleEnv({ AHP_GATEWAY_URL: 'http://gw:8080/?x=1' })).toThrow(/AHP_GATEWAY_URL/);
  });

  it('reads the trace link template: http(s), with {trace_id}', () => {
    expect(parseConsoleEnv({ AHP_TRACE_URL: ' http://jaeger:16686/trace/{trace_id} ' })).toEqual({ gatewayUrl: 'http://127.0.0.1:8080', traceUrl: 'http://jaeger:16686/trace/{trace_id}' });
    expect(parseConsoleEnv({ AHP_TRACE_URL: '' })).toEqual({ gatewayUrl: 'http://127.0.0.1:8080' });
    expect(() => parseConsoleEnv({ AHP_TRACE_URL: 'http://jaeger:16686/trace/' })).toThrow(/AHP_TRACE_URL must contain \{trace_id\}/);
    expect(() => parseConsoleEnv({ AHP_TRACE_URL: 'javascript:alert("{trace_id}")' })).toThrow(/AHP_TRACE_URL must be an absolute http\(s\) URL/);
    expect(() => parseConsoleEnv({ AHP_TRACE_URL: '/trace/{trace_id}' })).toThrow(ConsoleEnvError);
  });
});
