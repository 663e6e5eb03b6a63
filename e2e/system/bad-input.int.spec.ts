// Starts: a private Redis, one gateway process (small frame limit) and one oracle-worker process.
// Every class of bad input gets its typed answer; the offending connection keeps working where the
// error is recoverable, and another agent's round trips are never disturbed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connect, type AhpClient } from '@ahp/sdk';
import { RawAgent, startSystem, type System } from './harness.js';

const MAX_FRAME = 64 * 1024;
const hook = (id: string, context: unknown = { tool: { name: 'bash', input: { command: 'ls' } } }) => ({
  type: 'hook',
  id,
  trigger: 'pre-tool-use',
  context,
});

/** The HTTP status of a refused upgrade, or 101 when the socket opened. */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      resolve(101);
      ws.close();
    });
    ws.once('error', (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error);
    });
  });
}

describe('bad input against a gateway process', () => {
  let system: System;
  let bystander: AhpClient;
  let url: string;

  beforeAll(async () => {
    system = await startSystem({
      name: 'bad-input',
      gateways: 1,
      workers: 1,
      agents: [
        { id: 'mallory', name: 'Mallory' },
        { id: 'bystander', name: 'Bystander' },
      ],
      gatewayEnv: { AHP_MAX_FRAME_BYTES: String(MAX_FRAME) },
    });
    url = system.stack.gatewayUrls()[0]!;
    bystander = await connect({ url, token: system.token('bystander') });
  });

  afterAll(async () => {
    bystander?.close();
    await system?.stop();
  });

  it('refuses upgrades without a token or with a wrong one with HTTP 401, before any socket exists', async () => {
    expect(await upgradeStatus(url)).toBe(401);
    expect(await upgradeStatus(url, { authorization: 'Bearer ahp_not-a-real-token' })).toBe(401);
    expect(await upgradeStatus(`${url}?token=wrong`)).toBe(401);
    expect(await upgradeStatus(url, { authorization: `Bearer ${system.token('mallory')}` })).toBe(101);
  });

  it('answers each class of bad frame with its typed error and keeps the connection usable', async () => {
    const mallory = await RawAgent.connect(url, system.token('mallory'));
    const extraKeyId = randomUUID();
    const cases: { frame: string; id: string | null; code: string }[] = [
      { frame: 'this is not json', id: null, code: 'E_BAD_FRAME' },
      { frame: '[1,2,3]', id: null, code: 'E_BAD_FRAME' },
      { frame: JSON.stringify({ type: 'teleport', id: 'u1' }), id: 'u1', code: 'E_UNKNOWN_TYPE' },
      { frame: JSON.stringify({ ...hook('not-a-uuid'), trigger: 'pre-everything' }), id: 'not-a-uuid', code: 'E_INVALID_FRAME' },
      { frame: JSON.stringify({ ...hook(extraKeyId), extra: { nested: true } }), id: extraKeyId, code: 'E_INVALID_FRAME' },
      { frame: '{"type":"hook","id":"p1","trigger":"pre-tool-use","context":{"__proto__":{"admin":true}}}', id: 'p1', code: 'E_INVALID_FRAME' },
      { frame: JSON.stringify(hook('h1')).slice(0, 40), id: null, code: 'E_BAD_FRAME' },
      { frame: JSON.stringify({ type: 'hello', id: 'again', protocol: 1, client: { name: 'x', version: '1' } }), id: 'again', code: 'E_HANDSHAKE' },
    ];
    for (const [index, { frame, id, code }] of cases.entries()) {
      const before = mallory.frames.length;
      mallory.send(frame);
      const answer = await mallory.next((f) => mallory.frames.indexOf(f) >= before && f.type === 'error');
      expect(answer, `case ${index}: ${frame.slice(0, 60)}`).toMatchObject({ type: 'error', id, error: { code } });
    }

    const binaryBefore = mallory.frames.length;
    mallory.ws.send(Buffer.from([0xff, 0xfe, 0x00]), { binary: true });
    const binary = await mallory.next((f) => mallory.frames.indexOf(f) >= binaryBefore && f.type === 'error');
    expect(binary).toMatchObject({ error: { code: 'E_BAD_FRAME' } });

    const hookId = randomUUID();
    mallory.send(hook(hookId));
    expect(await mallory.next((f) => f.type === 'decision' && f.id === hookId)).toMatchObject({ decision: { allowed: true } });
    mallory.close();
  });

  it('answers a frame over the limit with E_FRAME_TOO_LARGE, closes one over twice the limit (1009), while other agents keep working', async () => {
    const mallory = await RawAgent.connect(url, system.token('mallory'));
    const during = bystander.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'rm -rf /' } } });
    mallory.send(hook(randomUUID(), { blob: 'x'.repeat(MAX_FRAME + 1) }));
    expect(await mallory.next((f) => f.type === 'error')).toMatchObject({ id: null, error: { code: 'E_FRAME_TOO_LARGE' } });
    mallory.send(hook(randomUUID(), { blob: 'x'.repeat(2 * MAX_FRAME + 1) }));
    expect((await mallory.closed).code).toBe(1009);
    expect((await during).allowed).toBe(false);
    expect((await bystander.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'pwd' } } })).allowed).toBe(true);
  });
});
