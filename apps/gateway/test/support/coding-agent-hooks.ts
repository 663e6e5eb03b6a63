/**
 * What the coding-agent hook specs (Claude Code, Codex, Copilot) do the same way: post an input
 * to the gateway's HTTP hook endpoint as the agent, and take the jobs it enqueues as a worker
 * would, each once.
 */
import type { HookJobData } from '@ahp/protocol';
import { vi } from 'vitest';
import type { TestGateway, TestStore } from './test-gateway.js';

/** The coding agents with an HTTP hook endpoint, `/v1/hooks/<agent>`. */
export type CodingAgentEndpoint = 'claude-code' | 'codex' | 'copilot';

/**
 * Posts `body` (sent as it is when a string: malformed JSON stays malformed) to the agent's hook
 * endpoint. `authorization: null` sends no Authorization header.
 */
export function postHook(gw: TestGateway, endpoint: CodingAgentEndpoint, body: unknown, authorization: string | null): Promise<Response> {
  return fetch(`${gw.httpUrl}/v1/hooks/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization === null ? {} : { authorization }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Waits for the next hook job not taken yet; `taken` holds the hook ids it has returned. */
export type HookJobTaker = (() => Promise<HookJobData>) & { readonly taken: ReadonlySet<string> };

/**
 * Returns a function that waits for the next hook job not taken yet, on every shard of the hook
 * queue, as a worker takes it. `store` is read at each call (specs open it in `beforeAll`).
 */
export function hookJobTaker(store: () => TestStore): HookJobTaker {
  const taken = new Set<string>();
  const next = () =>
    vi.waitFor(
      async () => {
        const queues = store().queue.queues;
        const jobs = (await Promise.all(queues.map((queue) => queue.getJobs(['wait', 'waiting', 'prioritized', 'delayed', 'active'])))).flat();
        const job = jobs.find((candidate) => !taken.has(candidate.data.hook_id));
        if (job === undefined) throw new Error('no new job yet');
        taken.add(job.data.hook_id);
        return job.data;
      },
      { timeout: 10_000, interval: 20 },
    );
  return Object.assign(next, { taken: taken as ReadonlySet<string> });
}
