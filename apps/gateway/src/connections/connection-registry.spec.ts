import { EventEmitter } from 'node:events';
import { CLOSE_CODES } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { JsonLogger } from '../logging/json-logger.js';
import { AgentConnection } from './agent-connection.js';
import { ConnectionRegistry } from './connection-registry.js';

/** Nothing is sent in these checks; the registry only reads the connection's agent and session. */
class SilentSocket extends EventEmitter {
  readyState = 1;
}

const logger = new JsonLogger({ level: 'error', write: () => undefined });

function connection(agentId: string): AgentConnection {
  const agent = { identity: { id: agentId, name: agentId }, tokenDigest: '0'.repeat(64) };
  return new AgentConnection(new SilentSocket() as unknown as WebSocket, agent, { maxBufferedBytes: 1024, slowConsumerCode: CLOSE_CODES.SLOW_CONSUMER, logger });
}

describe('ConnectionRegistry: connections per agent (the AHP_AGENT_MAX_CONNECTIONS count)', () => {
  it('counts every open connection of an agent, welcomed or not, and forgets the closed ones', () => {
    const registry = new ConnectionRegistry();
    const [a1, a2, b1] = [connection('a'), connection('a'), connection('b')];
    for (const c of [a1, a2, b1]) registry.add(c);
    registry.add(a1);
    expect([registry.countOf('a'), registry.countOf('b'), registry.countOf('c')]).toEqual([2, 1, 0]);

    a2.sessionId = 's-2';
    registry.promote(a2);
    expect(registry.remove(a2)).toBe(true);
    expect(registry.remove(a1)).toBe(false);
    expect(registry.remove(a1)).toBe(false);
    expect([registry.countOf('a'), registry.countOf('b'), registry.size]).toEqual([0, 1, 1]);
  });
});
