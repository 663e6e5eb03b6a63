import net from 'node:net';

/**
 * Asks the kernel for a port that is free right now by binding port 0 and releasing it.
 * Another process can take it before Redis binds it, so callers must retry on "address in use".
 *
 * @param host - the address the port will be used on.
 */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => (port === undefined ? reject(new Error('could not read the bound port')) : resolve(port)));
    });
  });
}

/**
 * Whether `port` can be bound on `host` right now. Only a hint (see {@link findFreePort}); it
 * never connects to whatever holds the port, so it cannot disturb another Redis.
 */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
