/**
 * WebSocket by hand over a `net` socket, for what no well-behaved client library sends: upgrade
 * requests with thousands of headers, fragment floods, reserved opcodes, unmasked or oversized
 * frames. It reads the server's answer just far enough to report the HTTP status of the upgrade
 * and the code of the close frame.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** The end of an upgrade attempt: the HTTP status, and (for 101) the socket to write frames on. */
export interface RawUpgrade {
  status: number;
  socket: Socket;
  /** Resolves with the server's close code (1005 for a close frame without one), or undefined when the socket ended without a close frame. */
  closeCode: Promise<number | undefined>;
}

/**
 * Sends an upgrade request for `path` with the given extra header lines (`Name: value`) and
 * resolves once the response head arrived (or the socket ended without one: status 0).
 */
export function rawUpgrade(port: number, path: string, headerLines: readonly string[]): Promise<RawUpgrade> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  const head = [
    `GET ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
    'Sec-WebSocket-Version: 13',
    ...headerLines,
    '',
    '',
  ].join('\r\n');
  let buffered = Buffer.alloc(0);
  let frames: Buffer | undefined;
  let resolveClose: (code: number | undefined) => void = () => undefined;
  const closeCode = new Promise<number | undefined>((resolve) => {
    resolveClose = resolve;
  });
  const readFrames = () => {
    if (frames === undefined) return;
    const code = closeCodeIn(frames);
    if (code !== undefined) resolveClose(code);
  };
  return new Promise((resolve) => {
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      if (answered) {
        frames = Buffer.concat([frames ?? Buffer.alloc(0), chunk]);
        readFrames();
        return;
      }
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      answered = true;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(buffered.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      frames = buffered.subarray(end + 4);
      readFrames();
      resolve({ status, socket, closeCode });
    });
    socket.on('close', () => {
      resolveClose(undefined);
      if (!answered) {
        answered = true;
        resolve({ status: 0, socket, closeCode });
      }
    });
    socket.write(head);
  });
}

/** The code of the first close frame in a server's byte stream (server frames are unmasked), if it is complete. */
function closeCodeIn(bytes: Buffer): number | undefined {
  let at = 0;
  while (at + 2 <= bytes.length) {
    const opcode = bytes[at]! & 0x0f;
    let length = bytes[at + 1]! & 0x7f;
    let offset = at + 2;
    if (length === 126) {
      if (offset + 2 > bytes.length) return undefined;
      length = bytes.readUInt16BE(offset);
      offset += 2;
    } else if (length === 127) {
      if (offset + 8 > bytes.length) return undefined;
      length = Number(bytes.readBigUInt64BE(offset));
      offset += 8;
    }
    if (offset + length > bytes.length) return undefined;
    if (opcode === 0x8) return length >= 2 ? bytes.readUInt16BE(offset) : 1005;
    at = offset + length;
  }
  return undefined;
}

/** Options of {@link clientFrame}. */
export interface FrameOptions {
  /** @defaultValue true */
  fin?: boolean;
  /** The three RSV bits (RSV1 = 4). @defaultValue 0 */
  rsv?: number;
  /** Clients must mask; false sends a frame a server must refuse. @defaultValue true */
  mask?: boolean;
  /** Announce this payload length instead of the real one (the payload is not sent then). */
  declaredLength?: number;
}

/** One WebSocket frame as a client writes it. */
export function clientFrame(opcode: number, payload: Buffer = Buffer.alloc(0), options: FrameOptions = {}): Buffer {
  const fin = options.fin ?? true;
  const mask = options.mask ?? true;
  const length = options.declaredLength ?? payload.length;
  const first = (fin ? 0x80 : 0) | ((options.rsv ?? 0) << 4) | (opcode & 0x0f);
  let header: Buffer;
  if (length < 126) header = Buffer.from([first, (mask ? 0x80 : 0) | length]);
  else if (length < 65_536) {
    header = Buffer.alloc(4);
    header[0] = first;
    header[1] = (mask ? 0x80 : 0) | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = (mask ? 0x80 : 0) | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  if (options.declaredLength !== undefined) return mask ? Buffer.concat([header, randomBytes(4)]) : header;
  if (!mask) return Buffer.concat([header, payload]);
  const key = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, index) => byte ^ key[index % 4]!));
  return Buffer.concat([header, key, masked]);
}
