/**
 * `command-hook`: Claude Code's command hook as Claude Code runs it — `ahp hook claude-code` as a
 * fresh process per tool call (bin/ahp.js, which routes the call to the CLI's small hook entry),
 * the hook input on stdin, the answer on stdout — against the product stack's gateway, one call
 * at a time. Compared with the `spawn` baseline (a process that only parses and answers), the
 * difference is what the hook entry loads plus the HTTP round trip and the decision.
 */
import { join } from 'node:path';
import { count } from '../report/format.js';
import { measured, type Phase } from '../orchestrator/context.js';
import { hookEvent } from '../workload/hook-events.js';
import { latencyLine, warmUp } from './common.js';

/** The agent endpoint `ws://host:port/v1/agents` → the gateway's HTTP base `http://host:port`. */
function httpBase(agentEndpoint: string): string {
  const url = new URL(agentEndpoint);
  return `http://${url.host}`;
}

/** The workload's first event as the PreToolUse input Claude Code writes on a command hook's stdin. */
function claudeCodeInput(): string {
  const tool = hookEvent(0).context['tool'] as { name: string; input: Record<string, unknown> };
  return JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 'bench-command-hook', cwd: '/home/dev/work/acme-billing', tool_name: tool.name, tool_input: tool.input });
}

export const commandHook: Phase = {
  key: 'command-hook',
  name: 'Claude Code command hook',
  resultPath: 'product.commandHook',
  describe: (plan) => `${count(plan.spawnRuns)} × ahp hook claude-code < input.json, against the stack's gateway`,
  async run(ctx) {
    const { loadgen } = ctx;
    const stack = await ctx.product();
    const login = ctx.logins[0];
    const gateway = stack.urls()[0];
    if (login === undefined || gateway === undefined) throw new Error('no agent token or gateway for the command hook');
    await loadgen.open({
      name: 'spawn',
      script: join(ctx.root, 'tools', 'cli', 'bin', 'ahp.js'),
      args: ['hook', 'claude-code', '--gateway', httpBase(gateway)],
      env: { AHP_TOKEN: login.token },
      input: claudeCodeInput(),
    });
    try {
      await warmUp(ctx, 'spawn', 2);
      const { result, cpu } = await ctx.measureCpu([], () => loadgen.run('spawn', { kind: 'closed', concurrency: 1, count: ctx.plan.spawnRuns }));
      ctx.results.product.commandHook = { roundTrip: measured(result), cpu };
      const spawnP50 = ctx.results.baselines.spawn?.roundTrip.latency.p50;
      const ratio = spawnP50 === undefined || spawnP50 === 0 ? '' : `, ${(result.samples.length > 0 ? ctx.results.product.commandHook.roundTrip.latency.p50 / spawnP50 : 0).toFixed(2)} × spawn p50`;
      return `${latencyLine(ctx.results.product.commandHook.roundTrip)}${ratio}`;
    } finally {
      await loadgen.close('spawn');
    }
  },
};
