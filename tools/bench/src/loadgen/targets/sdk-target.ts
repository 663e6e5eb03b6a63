/**
 * The product through its SDK: `client.hook('pre-tool-use', context)` on one of several connected
 * agents (operation `i` on agent `i mod n`), resolved when the decision arrives.
 *
 * Like every well-behaved agent, each one answers the block and control signals it gets (the
 * gateway refuses a session's hooks once one stays unanswered past its grace, docs/protocol.md
 * §3). The answer is sent without holding up the operation, since the figure is the decision's
 * latency; an answer that fails makes that agent's next operation fail with `answer:<code>`.
 */
import { connect, type AhpClient, type HookResult } from '@ahp/sdk';
import { BENCH_TRIGGER, hookEvents } from '../../workload/hook-events.js';
import type { AgentLogin } from '../protocol.js';
import { checkDecision } from './outcome.js';
import { codedError, type LoadTarget } from './target.js';

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
  const answerErrors = new Map<AhpClient, Error>();
  const answering = new Set<Promise<void>>();
  function answer(client: AhpClient, result: HookResult): void {
    for (const signal of result.signals) {
      const action = signal.header.intensity === 'block' ? 'abort' : signal.header.intensity === 'control' ? 'accept_modification' : undefined;
      if (action === undefined) continue;
      const sent: Promise<void> = client
        .respond(signal, action)
        .then(
          () => undefined,
          (error: unknown) => {
            const code = (error as { code?: string }).code ?? 'unknown';
            answerErrors.set(client, codedError(`answer:${code}`, `answering signal ${signal.header.id} failed: ${String((error as Error).message ?? error)}`));
          },
        )
        .finally(() => answering.delete(sent));
      answering.add(sent);
    }
  }
  return {
    report: { connections: clients.length, failed: failures.length, failures: failures.slice(0, 3) },
    op: async (index) => {
      const event = EVENTS[index % EVENTS.length] as (typeof EVENTS)[number];
      const client = clients[index % clients.length] as AhpClient;
      const earlier = answerErrors.get(client);
      if (earlier !== undefined) {
        answerErrors.delete(client);
        throw earlier;
      }
      const result = await client.hook(BENCH_TRIGGER, event.context);
      checkDecision(result.decision, event.expected);
      answer(client, result);
    },
    close: async () => {
      await Promise.allSettled([...answering]);
      await Promise.all(clients.map((client) => client.close()));
    },
  };
}
