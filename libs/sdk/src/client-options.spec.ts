import { describe, expect, it } from 'vitest';
import { checkConnectOptions, checkDuration, checkUrls, resolveClientSettings } from './client-options.js';
import { silentLogger } from './logger.js';
import { SDK_NAME, SDK_VERSION } from './version.js';

const BASE = { url: 'wss://gw.example/v1/agents', token: 't' };

describe('client options', () => {
  it('fills every default and keeps what was given', () => {
    expect(checkConnectOptions(BASE)).toEqual({ urls: ['wss://gw.example/v1/agents'], connectTimeoutMs: 30_000 });
    const settings = resolveClientSettings({ ...BASE, hookDeadlineMs: 5_000, lead: 'lead-1' });
    expect(settings).toMatchObject({
      logger: silentLogger,
      hookDeadlineMs: 5_000,
      requestDeadlineMs: 30_000,
      lead: 'lead-1',
      client: { name: SDK_NAME, version: SDK_VERSION },
      handshakeTimeoutMs: 10_000,
      livenessFactor: 2,
      maxFrameBytes: 16 * 1024 * 1024,
    });
  });

  it('refuses URLs that are not ws: or wss:, an empty list, and a missing token, naming the option', () => {
    expect(() => checkUrls([])).toThrow(/url: at least one/);
    expect(() => checkUrls('http://gw.example/v1/agents')).toThrow(/must use ws: or wss:/);
    expect(() => checkUrls('not a url')).toThrow(/not a valid URL/);
    expect(() => checkConnectOptions({ ...BASE, token: '' })).toThrow(/token:/);
  });

  it('never shows a token of a refused URL', () => {
    expect(() => checkUrls('https://gw.example/v1/agents?token=secret')).toThrow(expect.objectContaining({ message: expect.not.stringContaining('secret') as unknown }));
  });

  it('refuses durations that are not positive integers, and a bad lead or liveness factor', () => {
    expect(checkDuration('deadlineMs', undefined, 7)).toBe(7);
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => checkDuration('deadlineMs', bad, 7)).toThrow(/deadlineMs must be a positive integer/);
    expect(() => resolveClientSettings({ ...BASE, lead: '' })).toThrow(/lead:/);
    expect(() => resolveClientSettings({ ...BASE, livenessFactor: 0 })).toThrow(/livenessFactor/);
  });
});
