// Starts: a private Redis, one gateway process and two oracle-worker processes with short lock
// and stall-check settings. The worker evaluating a hook is killed with SIGKILL mid-job; BullMQ
// hands the stalled job to the other worker, and the agent still receives exactly one decision.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawAgent, SLOW_ORACLE_PLUGIN, eventually, slowJobPids, startSystem, type System } from './harness.js';

describe('a worker killed with SIGKILL mid-job', () => {
  let system: System;

  beforeAll(async () => {
    system = await startSystem({
      name: 'worker-crash',
      gateways: 1,
      workers: 2,
      agents: [{ id: 'alice', name: 'Alice' }],
      gatewayEnv: { AHP_HOOK_DEADLINE_MS: '30000' },
      workerEnv: {
        AHP_ORACLE_PLUGINS: SLOW_ORACLE_PLUGIN,
        AHP_ORACLE_BUDGET_MS: '20000',
        AHP_WORKER_LOCK_MS: '1500',
        AHP_WORKER_STALLED_INTERVAL_MS: '500',
      },
    });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('still gets exactly one decision, from the worker that took the job over', async () => {
    const agent = await RawAgent.connect(system.stack.gatewayUrls()[0]!, system.token('alice'));
    const markers = join(system.dir, 'slow-jobs');
    const hookId = randomUUID();
    agent.send({ type: 'hook', id: hookId, trigger: 'pre-issue-submit', context: { extra: { slow: { ms: 2500, marker_dir: markers } } } });

    const [firstPid] = await eventually(async () => {
      const pids = await slowJobPids(markers);
      return pids.length > 0 ? pids : undefined;
    }, 'a worker to start the slow job');
    const victim = system.stack.workers.find((worker) => worker.pid === firstPid)!;
    victim.kill('SIGKILL');
    await victim.exited;

    const decision = await agent.next((frame) => frame.type === 'decision' && frame.id === hookId);
    expect(decision).toMatchObject({ decision: { hook_id: hookId, allowed: true, decided_by: 'oracles' } });
    const pids = await slowJobPids(markers);
    expect(pids).toHaveLength(2);
    expect(pids).toContain(firstPid);

    // The killed worker's attempt can never complete; wait out one more stall-check cycle of the
    // survivor and make sure no second decision reached the agent.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(agent.framesFor(hookId)).toHaveLength(1);
    agent.close();
  });
});
