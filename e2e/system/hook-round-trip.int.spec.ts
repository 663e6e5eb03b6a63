// Starts: a private Redis, one gateway process and two oracle-worker processes; agents use the SDK.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type AhpClient } from '@ahp/sdk';
import { RawAgent, startSystem, type System } from './harness.js';

const shell = (command: string) => ({ tool: { name: 'bash', input: { command } } });

describe('hook round trip across processes (SDK → gateway → BullMQ → worker → gateway → SDK)', () => {
  let system: System;
  let alice: AhpClient;

  beforeAll(async () => {
    system = await startSystem({
      name: 'round-trip',
      gateways: 1,
      workers: 2,
      agents: [
        { id: 'alice', name: 'Alice', team: 'core', role: 'lead' },
        { id: 'bob', name: 'Bob', team: 'core', role: 'teammate' },
      ],
    });
    alice = await connect({ url: system.stack.gatewayUrls(), token: system.token('alice') });
  });

  afterAll(async () => {
    alice?.close();
    await system?.stop();
  });

  it('lets a harmless tool call through with no intervention', async () => {
    const result = await alice.hook('pre-tool-use', shell('ls -la'));
    expect(result).toMatchObject({ allowed: true, intensity: null, signals: [], modifications: [], decidedBy: 'oracles' });
  });

  it('blocks a destructive command with a reason and a resolution path, and records the agent response', async () => {
    const result = await alice.hook('pre-tool-use', shell('rm -rf /'));
    expect(result.allowed).toBe(false);
    if (result.allowed) return;
    expect(result.intensity).toBe('block');
    expect(result.block.source).toBe('permission-check');
    expect(result.block.reason).toMatch(/irreversibly/);
    expect(result.block.resolutionPath.length).toBeGreaterThan(0);
    const signal = result.block.signal!;
    expect(signal.header).toMatchObject({ intensity: 'block', source: 'permission-check', correlation_id: result.hookId });

    await alice.respond(signal, 'retry_after_fix', { note: 'will delete ./build only' });
    const record = await system.stores.signals.get(signal.header.id);
    expect(record).toMatchObject({ agent_id: 'alice', intensity: 'block', response: { action: 'retry_after_fix' } });
  });

  it('allows a force push with a modification (control)', async () => {
    const result = await alice.hook('pre-tool-use', shell('git push --force origin main'));
    expect(result).toMatchObject({ allowed: true, intensity: 'control' });
    expect(result.modifications).toHaveLength(1);
    expect(JSON.stringify(result.modifications[0]!.updated)).toContain('--force-with-lease');
  });

  it('returns the first decision for a re-sent hook id instead of evaluating again', async () => {
    const hookId = randomUUID();
    const first = await alice.hook('pre-tool-use', shell('rm -rf ~'), { hookId });
    const again = await alice.hook('pre-tool-use', shell('rm -rf ~'), { hookId });
    expect(again.decision).toEqual(first.decision);
  });

  it('checks signal responses on the gateway: intensity, ownership and existence', async () => {
    const blocked = await alice.hook('pre-tool-use', shell('rm -rf /'));
    const signalId = blocked.signals[0]!.header.id;
    const raw = await RawAgent.connect(system.stack.gatewayUrls()[0]!, system.token('alice'));
    const bob = await RawAgent.connect(system.stack.gatewayUrls()[0]!, system.token('bob'));
    try {
      const response = (action: string, id = signalId) => ({
        signal_id: id,
        consumed_at: new Date().toISOString(),
        action,
      });
      raw.send({ type: 'signal_response', id: 'r-dismiss', response: response('dismiss') });
      bob.send({ type: 'signal_response', id: 'r-foreign', response: response('abort') });
      raw.send({ type: 'signal_response', id: 'r-missing', response: response('abort', randomUUID()) });
      const dismiss = await raw.next((f) => f.type === 'error' && f.id === 'r-dismiss');
      const foreign = await bob.next((f) => f.type === 'error' && f.id === 'r-foreign');
      const missing = await raw.next((f) => f.type === 'error' && f.id === 'r-missing');
      expect(dismiss).toMatchObject({ error: { code: 'E_INVALID_ACTION' } });
      expect(foreign).toMatchObject({ error: { code: 'E_FORBIDDEN' } });
      expect(missing).toMatchObject({ error: { code: 'E_NOT_FOUND' } });
    } finally {
      raw.close();
      bob.close();
    }
  });
});
