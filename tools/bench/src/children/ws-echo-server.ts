/**
 * `ws` baseline server: a bare `ws` WebSocketServer that sends every message straight back.
 * Same transport settings as the gateway (no compression, 1 MiB frames).
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { announceReady, exitOnSignal } from './ready-line.js';

const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, maxPayload: 1024 * 1024 });
server.on('connection', (ws) => {
  ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
});
server.on('listening', () => announceReady('ws-echo', { port: (server.address() as AddressInfo).port }));
exitOnSignal(
  () =>
    new Promise<void>((resolve) => {
      for (const client of server.clients) client.terminate();
      server.close(() => resolve());
    }),
);
