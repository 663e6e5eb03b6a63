/**
 * Per-agent limits on connections and sessions, on one real gateway (Nest app in this process,
 * port 0, the run's private Redis) and real `ws` clients: `AHP_AGENT_MAX_CONNECTIONS` refuses the
 * connection one over the cap with `E_RATE_LIMITED` and 4006 — idle sockets that never sent
 * `hello` count — and leaves the agent's other connections and other agents alone;
 * `AHP_AGENT_NEW_SESSIONS_PER_MIN` / `AHP_AGENT_NEW_SESSION_BURST` refuse a `hello` that would
 * start one session too many (a `hello` resuming a session is not counted), and the refused
 * connection may still send another `hello`.
 */
import { CLOSE_CODES, type ErrorFrame } from '@ahp/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent, connectReady, type AgentClient } from './support/agent-client.js';
import { waitForJob } from './support/decisions.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestStore } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [
  { id: 'capped', name: 'Capped', token: newToken() },
  { id: 'neighbour', name: 'Neighbour', token: newToken() },
  { id: 'churner', name: 'Churner', token: newToken() },
];

const MAX_CONNECTIONS = 3;
const SESSION_BURST = 4;

let gw: TestGateway;
let store: TestStore;
const clients: AgentClient[] = [];

beforeAll(async () => {
  gw = await startTestGateway({
    name: 'agent-limits',
    agents: AGENTS,
    env: {
      AHP_AGENT_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
      // One new session a minute after the burst: nothing refills during the test.
      AHP_AGENT_NEW_SESSIONS_PER_MIN: '1',
      AHP_AGENT_NEW_SESSION_BURST: String(SESSION_BURST),
    },
  });
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await gw?.stop();
  await store?.close();
});

async function open(agentId: string): Promise<AgentClient> {
  const client = await connectAgent(gw.wsUrl, { token: gw.agents[agentId]!.token });
  clients.push(client);
  return client;
}

async function ready(agentId: string, hello: Record<string, unknown> = {}) {
  const result = await connectReady(gw.wsUrl, gw.agents[agentId]!.token, hello);
  clients.push(result.client);
  return result;
}

/** The refusal a connection over the cap gets: an error frame (id null), then close 4006. */
async function expectRefusedOverCap(client: AgentClient): Promise<void> {
  const refusal = await client.error(null);
  expect(refusal.error).toMatchObject({ code: 'E_RATE_LIMITED', retryable: true, details: { limit: { max_connections: MAX_CONNECTIONS }, subject: 'connections' } });
  expect(refusal.error.retry_after_ms).toBeGreaterThan(0);
  expect((await client.closed).code).toBe(CLOSE_CODES.CONNECTION_RATE_LIMITED);
  expect(client.invalid).toEqual([]);
}

describe('connections per agent (AHP_AGENT_MAX_CONNECTIONS)', () => {
  it('refuses the connection one over the cap with E_RATE_LIMITED and 4006; the others and other agents go on', async () => {
    const first = (await ready('capped')).client;
    await ready('capped');
    // A socket that never says hello holds a place too (until the handshake window closes it).
    const idle = await open('capped');

    await expectRefusedOverCap(await open('capped'));

    // The agent's welcomed connections still serve hooks; another agent connects as usual.
    const hook = first.hook('pre-tool-use');
    await waitForJob(store, hook.id);
    const neighbour = (await ready('neighbour')).client;
    await waitForJob(store, neighbour.hook('pre-tool-use').id);
    expect(idle.isOpen).toBe(true);

    // A place freed (the idle socket closed) can be taken again.
    await idle.close();
    await expect
      .poll(async () => {
        const again = await open('capped');
        const frame = await Promise.race([again.hello().then(() => 'welcome' as const, () => 'refused' as const), again.closed.then(() => 'refused' as const)]);
        if (frame === 'refused') await again.close();
        return frame;
      })
      .toBe('welcome');
  });
});

describe('new sessions per agent (AHP_AGENT_NEW_SESSIONS_PER_MIN, AHP_AGENT_NEW_SESSION_BURST)', () => {
  it('refuses the hello that would start one session too many; resuming is not counted, and the connection may say hello again', async () => {
    const sessions: string[] = [];
    for (let i = 0; i < SESSION_BURST; i += 1) {
      const { client, welcome } = await ready('churner');
      expect(welcome.resumed).toBe(false);
      sessions.push(welcome.session_id);
      await client.close();
    }

    const refused = await open('churner');
    const reply = await refused.request({ type: 'hello', id: 'hello-over', protocol: 1, client: { name: 'gateway-int-spec', version: '0.0.0' } });
    expect(reply.type).toBe('error');
    expect((reply as ErrorFrame).error).toMatchObject({ code: 'E_RATE_LIMITED', retryable: true, details: { subject: 'session', limit: { sessions_per_minute: 1, burst: SESSION_BURST } } });
    expect((reply as ErrorFrame).error.retry_after_ms).toBeGreaterThan(0);
    // A session id that cannot be resumed would start a session too: refused as well.
    const unknown = await refused.request({ type: 'hello', id: 'hello-unknown', protocol: 1, client: { name: 'gateway-int-spec', version: '0.0.0' }, session_id: 'no-such-session' });
    expect(unknown.type === 'error' && unknown.error.code).toBe('E_RATE_LIMITED');

    // The same connection resumes an earlier session: not a new one, so not refused.
    const welcome = await refused.hello({ session_id: sessions[0] });
    expect(welcome).toMatchObject({ resumed: true, session_id: sessions[0] });
    await waitForJob(store, refused.hook('pre-tool-use').id);

    // Another agent's sessions are its own.
    expect((await ready('neighbour')).welcome.resumed).toBe(false);
  });
});
