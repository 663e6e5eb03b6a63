import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RespError } from './resp.js';
import { parseRedisUrl, redactRedisUrl, RespClient, RespConnectionError } from './resp-client.js';
import { RespParser, type RespValue } from './resp.js';

/** Encodes a reply the way a server would (strings as bulk strings). */
function encodeReply(value: RespValue | { simple: string } | { error: string }): string {
  if (value === null) return '$-1\r\n';
  if (typeof value === 'number') return `:${value}\r\n`;
  if (typeof value === 'string') return `$${Buffer.byteLength(value)}\r\n${value}\r\n`;
  if (Array.isArray(value)) return `*${value.length}\r\n${value.map((item) => encodeReply(item)).join('')}`;
  if ('simple' in value) return `+${value.simple}\r\n`;
  if ('error' in value) return `-${value.error}\r\n`;
  return `-${value.message}\r\n`;
}

type Handler = (command: string[], socket: net.Socket) => string | undefined;

/** A fake server on a free port: decodes each command and answers with `handler`'s reply. */
async function fakeServer(handler: Handler): Promise<{ port: number; received: string[][]; close(): Promise<void> }> {
  const received: string[][] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const parser = new RespParser();
    socket.on('data', (chunk) => {
      for (const value of parser.push(chunk)) {
        const command = value as string[];
        received.push(command);
        const reply = handler(command, socket);
        if (reply !== undefined) socket.write(reply);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('RespClient', () => {
  it('matches pipelined replies to their commands in order', async () => {
    const server = await fakeServer((command) => {
      if (command[0] === 'QUIT') return encodeReply({ simple: 'OK' });
      return command[0] === 'ECHO' ? encodeReply(command[1]!) : encodeReply(command.length);
    });
    servers.push(server);
    const client = await RespClient.connect({ port: server.port });
    const replies = await Promise.all([client.command('ECHO', 'one'), client.command('COUNT', 'a', 'b'), client.command('ECHO', 'three')]);
    expect(replies).toEqual(['one', 3, 'three']);
    await client.close();
    expect(server.received.map((command) => command[0])).toEqual(['ECHO', 'COUNT', 'ECHO', 'QUIT']);
  });

  it('rejects with RespError on an error reply and keeps working afterwards', async () => {
    const server = await fakeServer((command) =>
      command[0] === 'BAD' ? encodeReply({ error: 'ERR unknown command' }) : encodeReply({ simple: 'PONG' }),
    );
    servers.push(server);
    const client = await RespClient.connect({ port: server.port });
    await expect(client.command('BAD')).rejects.toBeInstanceOf(RespError);
    await expect(client.command('PING')).resolves.toBe('PONG');
    client.destroy();
  });

  it('rejects waiting commands when the server closes the connection', async () => {
    const server = await fakeServer((_command, socket) => {
      socket.destroy();
      return undefined;
    });
    servers.push(server);
    const client = await RespClient.connect({ port: server.port });
    await expect(client.command('PING')).rejects.toBeInstanceOf(RespConnectionError);
    await expect(client.command('PING')).rejects.toBeInstanceOf(RespConnectionError);
  });

  it('fails to connect to a closed port with RespConnectionError', async () => {
    const server = await fakeServer(() => undefined);
    const { port } = server;
    await server.close();
    await expect(RespClient.connect({ port })).rejects.toBeInstanceOf(RespConnectionError);
  });

  it('authenticates and selects the database given in a URL', async () => {
    const server = await fakeServer((command) =>
      command[0] === 'GET' ? encodeReply('value') : encodeReply({ simple: 'OK' }),
    );
    servers.push(server);
    const client = await RespClient.fromUrl(`redis://app:s%40cret@127.0.0.1:${server.port}/3`);
    await expect(client.command('GET', 'k')).resolves.toBe('value');
    client.destroy();
    expect(server.received.slice(0, 3)).toEqual([['AUTH', 'app', 's@cret'], ['SELECT', '3'], ['GET', 'k']]);
  });
});

describe('parseRedisUrl and redactRedisUrl', () => {
  it('reads host, port, credentials and database, with Redis defaults', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6390')).toEqual({ host: '127.0.0.1', port: 6390, db: 0 });
    expect(parseRedisUrl('redis://localhost')).toEqual({ host: 'localhost', port: 6379, db: 0 });
    expect(parseRedisUrl('redis://:pw@[::1]:7000/2')).toEqual({ host: '::1', port: 7000, db: 2, password: 'pw' });
  });

  it('refuses other schemes', () => {
    expect(() => parseRedisUrl('rediss://example.test:6380')).toThrow(TypeError);
    expect(() => parseRedisUrl('http://example.test')).toThrow(TypeError);
  });

  it('hides the password when printing a URL', () => {
    expect(redactRedisUrl('redis://user:secret@example.test:6379/1')).toBe('redis://user:***@example.test:6379/1');
    expect(redactRedisUrl('redis://example.test:6379')).toBe('redis://example.test:6379');
    expect(redactRedisUrl('not a url')).toBe('<unparsable REDIS_URL>');
  });
});
