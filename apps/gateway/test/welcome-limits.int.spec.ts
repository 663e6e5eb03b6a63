/**
 * The `welcome` example in docs/protocol.md §4.2 shows what a gateway with the default
 * configuration announces: a real gateway (Nest app on port 0, in this process, the run's private
 * Redis) started with every limit at its documented default answers a real `ws` client's `hello`
 * with the example's `limits` and `heartbeat_ms`, so the example cannot drift from the code again.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WelcomeFrame } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeConfig } from '../src/config/gateway-config.js';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { startTestGateway, type TestGateway } from './support/test-gateway.js';

const protocolMd = readFileSync(fileURLToPath(new URL('../../../docs/protocol.md', import.meta.url)), 'utf8');

/** The first ```json block of the `welcome` section. */
function documentedWelcome(): WelcomeFrame {
  const section = protocolMd.slice(protocolMd.indexOf('#### `welcome`'));
  const match = /^```json[ \t]*\r?\n([\s\S]*?)^```/m.exec(section);
  if (match === null) throw new Error('docs/protocol.md has no welcome example');
  return JSON.parse(match[1]!) as WelcomeFrame;
}

let gw: TestGateway;
let client: AgentClient | undefined;

beforeAll(async () => {
  // The test harness sets a minute-long hook deadline; put back the documented default.
  const defaults = Object.fromEntries(
    describeConfig()
      .filter((variable) => variable.name === 'AHP_HOOK_DEADLINE_MS')
      .map((variable) => [variable.name, variable.default!]),
  );
  gw = await startTestGateway({ name: 'welcome-limits', env: defaults });
});

afterAll(async () => {
  await client?.close();
  await gw?.stop();
});

describe('the documented welcome', () => {
  it('announces the limits and heartbeat a default gateway sends', async () => {
    const ready = await connectReady(gw.wsUrl, Object.values(gw.agents)[0]!.token);
    client = ready.client;
    const documented = documentedWelcome();
    expect(ready.welcome.limits).toEqual(documented.limits);
    expect(ready.welcome.heartbeat_ms).toBe(documented.heartbeat_ms);
  });
});
