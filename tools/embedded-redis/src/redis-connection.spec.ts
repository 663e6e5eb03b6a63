/**
 * withRedisConnection against a scripted TCP server (no Redis): what goes over the wire on
 * connect, a silent server, a closed port, and that the connection is dropped whatever `fn` does.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { findFreePort } from './free-port.js';
import { redactRedisUrl, withRedisConnection } from './redis-connection.js';

interface ScriptedServer {
  port: number;
  /** Everything every client sent, in order. */
  received: () => string;
  /** Resolves when the first client's socket has closed. */
  closed: Promise<void>;
}

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server that answers each command with `reply(command)`, or never answers when it returns undefined. */
async function scriptedServer(reply: (command: string) => string | undefined): Promise<ScriptedServer> {
  let received = '';
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  const server = net.createServer((socket) => {
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      const answer = reply(chunk.toString('utf8'));
      if (answer !== undefined) socket.write(answer);
    });
    socket.on('close', () => markClosed());
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, received: () => received, closed };
}

describe('withRedisConnection', () => {
  it('sends nothing but the caller\'s commands: no HELLO, no CLIENT SETINFO (a loading Redis must be reachable)', async () => {
    const server = await scriptedServer(() => '+PONG\r\n');
    await expect(withRedisConnection({ port: server.port }, (client) => client.ping())).resolves.toBe('PONG');
    expect(server.received()).toBe('*1\r\n$4\r\nPING\r\n');
  });

  it('rejects a command the server never answers, once the socket has been silent for idleTimeoutMs', async () => {
    const server = await scriptedServer(() => undefined);
    await expect(withRedisConnection({ port: server.port, idleTimeoutMs: 100 }, (client) => client.ping())).rejects.toThrow(/timeout/i);
  });

  it('rejects when nothing listens on the port, without retrying', async () => {
    const port = await findFreePort('127.0.0.1');
    await expect(withRedisConnection({ port }, (client) => client.ping())).rejects.toThrow(/ECONNREFUSED/);
  });

  it('drops the connection when fn throws, and passes the error on', async () => {
    const server = await scriptedServer(() => '+PONG\r\n');
    await expect(
      withRedisConnection({ url: `redis://127.0.0.1:${server.port}` }, async (client) => {
        await client.ping();
        throw new Error('checked, and it was wrong');
      }),
    ).rejects.toThrow('checked, and it was wrong');
    await server.closed;
  });

  it('passes an error reply on as a rejection', async () => {
    const server = await scriptedServer(() => '-LOADING Redis is loading the dataset in memory\r\n');
    await expect(withRedisConnection({ port: server.port }, (client) => client.info())).rejects.toThrow(/^LOADING/);
  });
});

describe('redactRedisUrl', () => {
  it('hides the password when printing a URL', () => {
    expect(redactRedisUrl('redis://user:secret@example.test:6379/1')).toBe('redis://user:***@example.test:6379/1');
    expect(redactRedisUrl('redis://example.test:6379')).toBe('redis://example.test:6379');
    expect(redactRedisUrl('not a url')).toBe('<unparsable REDIS_URL>');
  });
});
