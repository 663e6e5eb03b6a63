/**
 * connectRedis against the run's Redis: the connection name, and surviving a killed connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisClient } from '../src/index.js';
import { eventually, openClient, recordingLogger, redisUrl } from './support.js';

let admin: RedisClient;

beforeAll(async () => {
  admin = await openClient('store-test:admin');
});
afterAll(async () => {
  await admin.close();
});

describe('connectRedis', () => {
  it('names the connection, logs a killed connection instead of crashing, and reconnects', async () => {
    const logger = recordingLogger();
    const client = await connectRedis({ url: redisUrl(), name: 'store-test:named', logger });
    try {
      await expect(client.clientGetName()).resolves.toBe('store-test:named');
      const id = await client.clientId();
      await admin.sendCommand(['CLIENT', 'KILL', 'ID', String(id)]);

      await eventually(() => (logger.lines.some((line) => line.message === 'redis connection re-established') ? true : undefined), 'a reconnect');
      await expect(client.ping()).resolves.toBe('PONG');
      await expect(client.clientGetName()).resolves.toBe('store-test:named');
      expect(logger.lines.some((line) => line.level === 'warn')).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('refuses a connection name CLIENT SETNAME would reject', async () => {
    await expect(connectRedis({ url: redisUrl(), name: 'has space', logger: recordingLogger() })).rejects.toThrow(TypeError);
  });
});
