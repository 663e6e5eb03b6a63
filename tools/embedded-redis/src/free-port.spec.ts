import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { findFreePort, isPortFree } from './free-port.js';

describe('findFreePort and isPortFree', () => {
  it('finds a port that can then be bound', async () => {
    const port = await findFreePort();
    expect(port).toBeGreaterThan(0);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('tells a bound port from a free one without connecting to it', async () => {
    const server = net.createServer((socket) => {
      socket.destroy();
      throw new Error('isPortFree must not connect');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await expect(isPortFree(port)).resolves.toBe(false);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expect(isPortFree(port)).resolves.toBe(true);
  });
});
