import { describe, expect, it } from 'vitest';
import { encodeCommand, RespError, RespParser, RespProtocolError, type RespValue } from './resp.js';

/** Feeds `text` to a fresh parser in pieces of `size` bytes and collects every value. */
function parseInPieces(input: string | Buffer, size: number): RespValue[] {
  const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input, 'utf8');
  const parser = new RespParser();
  const values: RespValue[] = [];
  for (let i = 0; i < bytes.length; i += size) values.push(...parser.push(bytes.subarray(i, i + size)));
  expect(parser.bufferedBytes).toBe(0);
  return values;
}

describe('encodeCommand', () => {
  it('encodes every argument as a bulk string, counting bytes rather than characters', () => {
    expect(encodeCommand(['SET', 'k', 'v']).toString()).toBe('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n');
    expect(encodeCommand(['ECHO', 'é']).toString()).toBe('*2\r\n$4\r\nECHO\r\n$2\r\né\r\n');
  });

  it('sends numbers as text and buffers as raw bytes, including CRLF inside a value', () => {
    expect(encodeCommand(['EXPIRE', 'k', 10]).toString()).toBe('*3\r\n$6\r\nEXPIRE\r\n$1\r\nk\r\n$2\r\n10\r\n');
    expect(encodeCommand(['SET', 'k', Buffer.from('a\r\nb')]).toString()).toBe('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\nb\r\n');
  });

  it('encodes an empty argument as a zero-length bulk string', () => {
    expect(encodeCommand(['SET', 'k', '']).toString()).toBe('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n');
  });

  it('refuses an empty command', () => {
    expect(() => encodeCommand([])).toThrow(RangeError);
  });
});

describe('RespParser', () => {
  it('decodes simple strings, integers and negative integers', () => {
    expect(parseInPieces('+PONG\r\n:42\r\n:-7\r\n', 1024)).toEqual(['PONG', 42, -7]);
  });

  it('decodes an error reply into a RespError value with its prefix', () => {
    const [value] = parseInPieces('-WRONGTYPE Operation against a key holding the wrong kind of value\r\n', 1024);
    expect(value).toBeInstanceOf(RespError);
    expect((value as RespError).prefix).toBe('WRONGTYPE');
    expect((value as RespError).message).toMatch(/^WRONGTYPE Operation/);
  });

  it('decodes bulk strings, empty bulk strings and the null bulk string', () => {
    expect(parseInPieces('$5\r\nhello\r\n$0\r\n\r\n$-1\r\n', 1024)).toEqual(['hello', '', null]);
  });

  it('keeps CRLF that is part of a bulk string payload', () => {
    expect(parseInPieces('$4\r\na\r\nb\r\n', 1024)).toEqual(['a\r\nb']);
  });

  it('decodes nested arrays, empty arrays, the null array and errors inside arrays', () => {
    const values = parseInPieces('*3\r\n:1\r\n*2\r\n$1\r\na\r\n$-1\r\n-ERR inner\r\n*0\r\n*-1\r\n', 1024);
    expect(values).toHaveLength(3);
    const [first, empty, nullArray] = values as [RespValue[], RespValue, RespValue];
    expect(first[0]).toBe(1);
    expect(first[1]).toEqual(['a', null]);
    expect(first[2]).toBeInstanceOf(RespError);
    expect(empty).toEqual([]);
    expect(nullArray).toBeNull();
  });

  it('returns several values that arrive in one chunk, in order', () => {
    expect(parseInPieces('+OK\r\n+QUEUED\r\n$3\r\nfoo\r\n', 1024)).toEqual(['OK', 'QUEUED', 'foo']);
  });

  it('gives the same result whatever the chunk boundaries, even one byte at a time', () => {
    const wire = '*2\r\n$5\r\nhello\r\n*2\r\n:12\r\n+OK\r\n-ERR x\r\n$3\r\nbye\r\n';
    const whole = parseInPieces(wire, wire.length);
    for (const size of [1, 2, 3, 5, 7]) expect(parseInPieces(wire, size)).toEqual(whole);
  });

  it('holds back an incomplete value until the rest arrives', () => {
    const parser = new RespParser();
    expect(parser.push(Buffer.from('$5\r\nhel'))).toEqual([]);
    expect(parser.bufferedBytes).toBe(7);
    expect(parser.push(Buffer.from('lo\r'))).toEqual([]);
    expect(parser.push(Buffer.from('\n+OK'))).toEqual(['hello']);
    expect(parser.push(Buffer.from('\r\n'))).toEqual(['OK']);
  });

  it('decodes a multi-byte UTF-8 character split across chunks', () => {
    const wire = Buffer.from('$6\r\n€uro\r\n'.replace('$6', `$${Buffer.byteLength('€uro')}`), 'utf8');
    expect(parseInPieces(wire, 1)).toEqual(['€uro']);
  });

  it('rejects an unknown type byte, a bad length and a bulk string without its CRLF', () => {
    expect(() => new RespParser().push(Buffer.from('%1\r\n'))).toThrow(RespProtocolError);
    expect(() => new RespParser().push(Buffer.from('$x\r\n'))).toThrow(RespProtocolError);
    expect(() => new RespParser().push(Buffer.from('$-2\r\n'))).toThrow(RespProtocolError);
    expect(() => new RespParser().push(Buffer.from('$2\r\nabcd'))).toThrow(RespProtocolError);
  });
});
