/**
 * A client socket whose replies come back in request order (an echo server, Nest's message
 * dispatch): each message settles the oldest waiting request.
 */
import WebSocket from 'ws';
import { codedError } from './target.js';

export class FifoSocket {
  readonly #waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', () => this.#waiting.shift()?.resolve());
    ws.on('close', () => {
      const error = codedError('E_CLOSED', 'socket closed');
      for (const waiter of this.#waiting.splice(0)) waiter.reject(error);
    });
  }

  /** Opens a socket; ws' per-message compression stays off, as on the gateway. */
  static async open(url: string): Promise<FifoSocket> {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('error', () => undefined); // a later error also closes the socket, which rejects what waits
    return new FifoSocket(ws);
  }

  /** Sends `text` and resolves with the next reply on this socket. */
  request(text: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.ws.send(text);
    });
  }

  close(): void {
    this.ws.terminate();
  }
}
