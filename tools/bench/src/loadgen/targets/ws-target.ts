/**
 * `ws` and `nest` baselines: the benchmark event sent over a WebSocket and echoed back.
 * Operation `i` uses connection `i mod n`, so a closed loop with concurrency `c` keeps
 * `c / n` messages in flight on each connection.
 */
import { echoMessage, type EchoEnvelope } from '../../shared/echo-message.js';
import { FifoSocket } from './fifo-socket.js';
import type { LoadTarget } from './target.js';

export async function openWsTarget(url: string, connections: number, envelope: EchoEnvelope): Promise<LoadTarget> {
  const text = echoMessage(envelope);
  const sockets = await Promise.all(Array.from({ length: Math.max(1, connections) }, () => FifoSocket.open(url)));
  return {
    report: { connections: sockets.length, failed: 0, failures: [] },
    op: (index) => (sockets[index % sockets.length] as FifoSocket).request(text),
    close: async () => {
      for (const socket of sockets) socket.close();
    },
  };
}
