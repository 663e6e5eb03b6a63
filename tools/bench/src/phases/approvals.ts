/**
 * Approval latency across gateways: an operator approves a request through gateway B's operator
 * API and the agent waiting on gateway A receives the `request_update` (measured from the
 * operator's call to the update's arrival).
 *
 * It needs the request/approval feature (RequestStore, `request` frames, the operator API). The
 * capability check is behavioural — the load generator asks gateway B's operator API who the
 * operator is and opens and approves one request through both gateways before measuring — so it
 * holds whatever the libraries export. When the check fails the phase reports "skipped:
 * approvals not available" with what answered how, and the target built on it is skipped too.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentEndpoint, mintToken, tokenDigest } from '@ahp/stack';
import { count } from '../report/format.js';
import { measured, type Phase } from '../orchestrator/context.js';
import { ProductStack } from '../orchestrator/product-stack.js';
import { latencyLine, warmUp } from './common.js';

export const approvals: Phase = {
  key: 'approvals',
  name: 'approval latency',
  resultPath: 'product.approvals',
  describe: (plan) => `${count(plan.approvals)} approvals one at a time: operator call on gateway B → request_update on gateway A`,
  async run(ctx) {
    const skip = (reason: string) => {
      ctx.results.product.approvals = { status: 'skipped', reason };
      return `skipped: approvals not available (${reason})`;
    };
    await ctx.releaseProduct();
    const operatorToken = mintToken();
    const operatorsFile = join(ctx.runDir, 'operator-tokens.json');
    const operators = { operators: [{ id: 'bench-operator', name: 'Benchmark operator', role: 'approver', token_sha256: tokenDigest(operatorToken) }] };
    await writeFile(operatorsFile, JSON.stringify(operators), { mode: 0o600 });
    const stack = await ProductStack.start(ctx, { name: 'approvals', gateways: 2, workers: 1, gatewayEnv: { AHP_OPERATOR_TOKENS_FILE: operatorsFile } });
    try {
      const [gatewayA, gatewayB] = stack.stack.gateways;
      if (gatewayA === undefined || gatewayB === undefined) throw new Error('the approvals stack needs two gateways');
      const login = ctx.logins[0];
      if (login === undefined) throw new Error('no agent minted');
      const opened = await ctx.loadgen.open({
        name: 'approval',
        agentUrl: agentEndpoint(gatewayA),
        login,
        operatorUrl: `http://127.0.0.1:${String(gatewayB.ready['port'])}`,
        operatorToken,
      });
      if (opened.failed > 0) return skip(opened.failures[0] ?? 'the gateways do not serve approvals');
      await warmUp(ctx, 'approval', Math.min(20, ctx.plan.approvals));
      const run = await ctx.loadgen.run('approval', { kind: 'closed', concurrency: 1, count: ctx.plan.approvals });
      ctx.results.product.approvals = { status: 'measured', latency: measured(run) };
      return latencyLine(ctx.results.product.approvals.latency);
    } finally {
      await ctx.loadgen.close('approval').catch(() => undefined);
      await stack.stop();
    }
  },
};
