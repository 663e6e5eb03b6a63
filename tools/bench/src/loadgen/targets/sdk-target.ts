/**
 * The product through its SDK: `client.hook('pre-tool-use', context)` on one of several connected
 * agents (operation `i` on agent `i mod n`), resolved when the decision arrives.
 */
import { connect, type AhpClient } from '@ahp/sdk';
import { BENCH_TRIGGER, hookEvents } from '../../workload/hook-events.js';
import type { AgentLogin } from '../protocol.js';
import { checkDecision } from './outcome.js';
import type { LoadTarget } from './target.js';

const EVENTS = hookEvents(10_000);

export async function openSdkTarget(urls: string[], logins: AgentLogin[]): Promise<LoadTarget> {
  const settled = await Promise.allSettled(
    logins.map((login) =>
      connect({ url: urls, token: login.token, client: { name: 'ahp-bench', version: '0.1.0' }, connectTimeoutMs: 15_000 }),
    ),
  );
  const clients = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failures = settled.flatMap((result) => (result.status === 'rejected' ? [String((result.reason as Error).message ?? result.reason)] : []));
  if (clients.length === 0) throw new Error(`no agent could connect: ${failures[0] ?? 'unknown reason'}`);
  return {
    report: { connections: clients.length, failed: failures.length, failures: failures.slice(0, 3) },
    op: async (index) => {
      const event = EVENTS[index % EVENTS.length] as (typeof EVENTS)[number];
      const result = await (clients[index % clients.length] as AhpClient).hook(BENCH_TRIGGER, event.context);
      checkDecision(result.decision, event.expected);
    },
    close: async () => {
      await Promise.all(clients.map((client) => client.close()));
    },
  };
}
