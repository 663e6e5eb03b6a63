/**
 * A small RESP2 codec: enough of the Redis wire protocol to send simple commands and read
 * their replies without a client library. It exists so this tool (readiness checks, pid-file
 * reuse, its own tests) needs nothing beyond Node built-ins; application code should keep
 * using a real client such as ioredis.
 *
 * Scope: RESP2 only (simple strings, errors, integers, bulk strings, arrays, and the two
 * null forms). RESP3 types are never produced because we never send `HELLO 3`.
 */

/** A decoded reply. Bulk strings are decoded as UTF-8; nulls (`$-1`, `*-1`) become `null`. */
export type RespValue = string | number | null | RespError | RespValue[];

/** An argument of a command: strings and numbers are sent as their UTF-8 text. */
export type RespArgument = string | number | Buffer;

/**
 * An error reply from Redis (`-ERR …`). At the top level of a reply the client rejects with
 * it; inside an array (e.g. an `EXEC` result) it appears as a value.
 */
export class RespError extends Error {
  /** The first word of the message, e.g. `ERR`, `WRONGTYPE`, `LOADING`. */
  readonly prefix: string;

  constructor(message: string) {
    super(message);
    this.name = 'RespError';
    this.prefix = /^\S+/.exec(message)?.[0] ?? '';
  }
}

/** The byte stream is not valid RESP2; the connection cannot be trusted any more. */
export class RespProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RespProtocolError';
  }
}

const CRLF = Buffer.from('\r\n');

/**
 * Encodes a command as a RESP array of bulk strings, the form Redis expects from clients.
 *
 * @example encodeCommand(['SET', 'k', 'v']) → `*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n`
 */
export function encodeCommand(args: readonly RespArgument[]): Buffer {
  if (args.length === 0) throw new RangeError('a command needs at least one argument');
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg), 'utf8');
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, CRLF);
  }
  return Buffer.concat(parts);
}

/** Result of decoding one value: the value and where the next one starts. */
interface Decoded {
  value: RespValue;
  next: number;
}

/** Index just past the CRLF that ends the line starting at `start`, or -1 when incomplete. */
function lineEnd(buf: Buffer, start: number): number {
  const cr = buf.indexOf(CRLF, start);
  return cr === -1 ? -1 : cr;
}

function parseInteger(text: string, what: string): number {
  if (!/^-?\d+$/.test(text)) throw new RespProtocolError(`invalid ${what}: ${JSON.stringify(text)}`);
  return Number(text);
}

/** Decodes one value at `offset`, or returns undefined when the buffer ends before it does. */
function decodeAt(buf: Buffer, offset: number): Decoded | undefined {
  if (offset >= buf.length) return undefined;
  const cr = lineEnd(buf, offset + 1);
  if (cr === -1) return undefined;
  const typeByte = buf[offset] ?? 0;
  const type = String.fromCharCode(typeByte);
  const line = buf.toString('utf8', offset + 1, cr);
  const afterLine = cr + 2;
  switch (type) {
    case '+':
      return { value: line, next: afterLine };
    case '-':
      return { value: new RespError(line), next: afterLine };
    case ':':
      return { value: parseInteger(line, 'integer'), next: afterLine };
    case '$': {
      const length = parseInteger(line, 'bulk length');
      if (length === -1) return { value: null, next: afterLine };
      if (length < -1) throw new RespProtocolError(`invalid bulk length: ${length}`);
      const end = afterLine + length;
      if (buf.length < end + 2) return undefined;
      if (buf[end] !== 0x0d || buf[end + 1] !== 0x0a) {
        throw new RespProtocolError('bulk string is not followed by CRLF');
      }
      return { value: buf.toString('utf8', afterLine, end), next: end + 2 };
    }
    case '*': {
      const count = parseInteger(line, 'array length');
      if (count === -1) return { value: null, next: afterLine };
      if (count < -1) throw new RespProtocolError(`invalid array length: ${count}`);
      const items: RespValue[] = [];
      let next = afterLine;
      for (let i = 0; i < count; i++) {
        const item = decodeAt(buf, next);
        if (item === undefined) return undefined;
        items.push(item.value);
        next = item.next;
      }
      return { value: items, next };
    }
    default:
      throw new RespProtocolError(`unknown RESP type byte 0x${typeByte.toString(16).padStart(2, '0')}`);
  }
}

/**
 * Incremental decoder: feed it chunks as they arrive from the socket and it returns every
 * complete value, keeping a partial tail (even one cut inside a multi-byte UTF-8 character or
 * a nested array) until the rest arrives.
 */
export class RespParser {
  private pending: Buffer = Buffer.alloc(0);

  /**
   * Adds a chunk and returns the values it completed, in order.
   * @throws RespProtocolError when the stream is not RESP2; the parser is unusable afterwards.
   */
  push(chunk: Buffer): RespValue[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const values: RespValue[] = [];
    let offset = 0;
    for (;;) {
      const decoded = decodeAt(this.pending, offset);
      if (decoded === undefined) break;
      values.push(decoded.value);
      offset = decoded.next;
    }
    this.pending = offset === this.pending.length ? Buffer.alloc(0) : this.pending.subarray(offset);
    return values;
  }

  /** Bytes received but not yet part of a complete value. */
  get bufferedBytes(): number {
    return this.pending.length;
  }
}
