// Starts: a private Redis, two gateway processes (with operator tokens) and two oracle-worker
// processes, with a hooks configuration whose rules require an operator's approval. A team (a
// lead and two teammates) uses the SDK and raw WebSocket clients; operators use the HTTP API.
//
// The agent is the adversary (issue 16, items 1 and 6). Every test tries one way for an agent to
// get a tool call allowed without the approval the rule asked the operators for — another agent's
// approval, its lead's, its own request, a forged id, other arguments, a second use, a lenient
// rule's approval, a viewer's decision, a revoked grant — and asserts the refusal AND that nothing
// was recorded as allowed: the stored hook decision and the signal log of that hook. An agent
// flooding the operators with calls that need approval opens at most its cap of requests.
import { randomUUID } from 'node:crypto';
import { GrantRevokeResponseSchema, ProtocolStateSchema, RequestDecisionResponseSchema, ToolGrantSchema, type JsonObject, type ProtocolState } from '@ahp/protocol';
import { connect, type AhpClient, type HookResult } from '@ahp/sdk';
import { createKeys, readSignalLog, toolInputDigest, type SignalLogRecord } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allWorkersServe, publishThroughStore } from './config-support.js';
import { RawAgent, eventually, startSystem, type System } from './harness.js';
import { operatorApi, operatorCall, writeOperatorTokens, type OperatorTokens } from './team-support.js';

/** `lenient` and `seed` are the rules the stricter configuration replaces (see the rule-identity test). */
const rulesConfig = (strict: boolean) => `version: 1
hooks:
  pre-tool-use:
    oracles:
      - name: prod-guard
        use: rules
        rules:
          - id: kubectl-delete
            condition: 'tool.name == "bash" and tool.input.command matches /kubectl\\s+delete/'
            require_approval: { deadline: 10m, message: "{{ tool.input.command }} needs an operator" }
          - id: dropdb
            condition: 'tool.name == "bash" and tool.input.command matches /dropdb/'
            require_approval: { deadline: 10m }
          - id: deploy
            condition: 'tool.name == "deploy"'
            require_approval: { deadline: 1s }
${
  strict
    ? `          - id: migrate-strict
            condition: 'tool.name == "migrate"'
            require_approval: { deadline: 10m, on_expiry: reject }
          - id: seed
            condition: 'tool.name == "seed"'
            require_approval: { deadline: 1s, on_expiry: reject }`
    : `          - id: migrate-lenient
            condition: 'tool.name == "migrate"'
            require_approval: { deadline: 1s, on_expiry: approve }
          - id: seed
            condition: 'tool.name == "seed"'
            require_approval: { deadline: 1s, on_expiry: approve }`
}
`;

/** Signal types of the approval flow that allow a call (an expiry allows only when it does not block). */
const ALLOWING_TYPES = new Set(['approval-approved', 'approval-granted', 'approval-expired']);

/** AHP_AGENT_MAX_PENDING_REQUESTS of the gateways and workers: above what the other tests open. */
const MAX_PENDING = 60;
const allows = (type: string | undefined, intensity: string | null | undefined) => type !== undefined && ALLOWING_TYPES.has(type) && intensity !== 'block';

describe('approval adversaries: only the operators’ decision on the request the rule opened allows the call', () => {
  let system: System;
  let operators: OperatorTokens;
  const api: string[] = [];
  const clients: AhpClient[] = [];
  const raws: RawAgent[] = [];

  beforeAll(async () => {
    operators = await writeOperatorTokens([
      { id: 'op-maria', name: 'Maria', role: 'approver' },
      { id: 'op-vic', name: 'Vic', role: 'viewer' },
    ]);
    system = await startSystem({
      name: 'approval-adversaries',
      gateways: 2,
      workers: 2,
      agents: [
        { id: 'lead', name: 'Lead', team: 'ops', role: 'lead' },
        { id: 'mallory', name: 'Mallory', team: 'ops', role: 'teammate' },
        { id: 'bob', name: 'Bob', team: 'ops', role: 'teammate' },
        { id: 'flooder', name: 'Flooder', team: 'ops', role: 'teammate' },
      ],
      gatewayEnv: { AHP_OPERATOR_TOKENS_FILE: operators.file, AHP_REQUEST_SWEEP_MS: '200', AHP_AGENT_MAX_PENDING_REQUESTS: String(MAX_PENDING) },
      workerEnv: { AHP_AGENT_MAX_PENDING_REQUESTS: String(MAX_PENDING) },
    });
    api.push(...system.stack.gateways.map((gateway) => operatorApi(gateway)));
    await allWorkersServe(system, await publishThroughStore(system, rulesConfig(false)));
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    for (const raw of raws) raw.close();
    await system?.stop();
    await operators?.remove();
  });

  async function sdk(agentId: string, gateway: 0 | 1 = 0): Promise<AhpClient> {
    const client = await connect({ url: system.stack.gatewayUrls()[gateway]!, token: system.token(agentId), reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
    clients.push(client);
    return client;
  }

  async function raw(agentId: string, gateway: 0 | 1 = 0): Promise<RawAgent> {
    const agent = await RawAgent.connect(system.stack.gatewayUrls()[gateway]!, system.token(agentId));
    raws.push(agent);
    return agent;
  }

  const maria = () => operators.token('op-maria');

  async function request(requestId: string): Promise<ProtocolState> {
    const { status, json } = await operatorCall(api[0]!, maria(), 'GET', `/requests/${requestId}`);
    expect(status).toBe(200);
    return ProtocolStateSchema.parse((json as { request: unknown }).request);
  }

  async function decide(requestId: string, body: Record<string, unknown>, gateway: 0 | 1 = 0) {
    const { status, json } = await operatorCall(api[gateway]!, maria(), 'POST', `/requests/${requestId}/decision`, body);
    expect(status, JSON.stringify(json)).toBe(200);
    return RequestDecisionResponseSchema.parse(json);
  }

  /** A pre-tool-use hook that does not wait for an approval: the decision as the server gave it. */
  function call(client: AhpClient, tool: string, input: JsonObject, approval?: string): Promise<HookResult> {
    return client.hook('pre-tool-use', { tool: { name: tool, input }, ...(approval === undefined ? {} : { approval: { request_id: approval } }) }, { waitForApproval: false });
  }

  /** The request a waiting decision names. */
  function waitingOn(result: HookResult): string {
    const id = result.block?.awaitingApproval?.requestId;
    expect(id, `expected a decision that waits for an approval, got ${JSON.stringify(result.signals.map((s) => s.header.type))}`).toBeDefined();
    return id!;
  }

  async function signalLogOf(hookId: string): Promise<SignalLogRecord[]> {
    const all: SignalLogRecord[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await readSignalLog(system.redis, createKeys({ prefix: system.keyPrefix }), { count: 1000, ...(after === undefined ? {} : { after }) });
      all.push(...page);
      if (page.length < 1000) break;
      after = page[page.length - 1]!.id;
    }
    return all.filter((record) => record.entry.hook_id === hookId);
  }

  /** The refusal, as the agent got it, as it is stored, and in the signal log: nothing says "allowed". */
  async function expectRefused(result: HookResult): Promise<void> {
    expect(result.allowed, JSON.stringify(result.signals.map((s) => [s.header.type, s.context['approval']]))).toBe(false);
    expect(result.signals.some((signal) => allows(signal.header.type, signal.header.intensity))).toBe(false);
    const stored = await system.stores.hooks.get(result.hookId);
    expect(stored?.decision?.allowed).toBe(false);
    const logged = await eventually(async () => {
      const records = await signalLogOf(result.hookId);
      return records.length > 0 ? records : undefined;
    }, `the signal log entries of hook ${result.hookId}`);
    expect(logged.filter((record) => allows(record.entry.type, record.entry.intensity))).toEqual([]);
  }

  /** Opens a tool_approval through a raw connection (the SDK has no call for it); answers its ack. */
  async function openOwnRequest(agent: RawAgent, target: { kind: 'agent'; agent: string } | { kind: 'operators' }, payload: JsonObject): Promise<string> {
    const requestId = `req_${randomUUID()}`;
    agent.send({ type: 'request', id: `open-${requestId}`, request: { request_id: requestId, type: 'tool_approval', target, payload } });
    const reply = await agent.next((frame) => 'id' in frame && frame.id === `open-${requestId}`);
    expect(reply.type, JSON.stringify(reply)).toBe('ack');
    return requestId;
  }

  async function answerAsAgent(agent: RawAgent, requestId: string, approve: boolean): Promise<void> {
    agent.send({ type: 'response', id: `answer-${requestId}`, response: { request_id: requestId, type: 'tool_approval_response', approve } });
    const reply = await agent.next((frame) => 'id' in frame && frame.id === `answer-${requestId}`);
    expect(reply.type, JSON.stringify(reply)).toBe('ack');
  }

  it('an agent flooding calls that need approval opens at most its cap of requests over two workers; every call beyond is blocked at once with the cause; deciding one makes room', async () => {
    const flooder = await sdk('flooder');
    const results: HookResult[] = [];
    for (let batch = 0; batch < 7; batch++) {
      results.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => call(flooder, 'bash', { command: `dropdb scratch_${batch * 10 + i}` })))));
    }
    const waiting = results.filter((result) => result.block?.awaitingApproval !== undefined);
    const capped = results.filter((result) => result.block?.awaitingApproval === undefined);
    expect(waiting).toHaveLength(MAX_PENDING);
    expect(capped).toHaveLength(70 - MAX_PENDING);
    for (const result of capped) {
      expect(result.signals.find((signal) => signal.header.type === 'approval-required')?.context['approval']).toEqual({ status: 'unavailable', cause: 'too_many_pending', max: MAX_PENDING });
    }
    await expectRefused(capped[0]!);
    const listed = await operatorCall(api[1]!, maria(), 'GET', '/requests?agent=flooder&status=pending&limit=500');
    expect((listed.json as { requests: unknown[] }).requests).toHaveLength(MAX_PENDING);

    // Another agent is still asked; once one of the flooder's requests is decided, its next call is too.
    waitingOn(await call(await sdk('bob'), 'bash', { command: 'dropdb bobs_scratch' }));
    await decide(waitingOn(waiting[0]!), { approve: false, feedback: 'one at a time' });
    waitingOn(await call(flooder, 'bash', { command: 'dropdb scratch_after' }));
  });

  it('a teammate’s own tool_approval approved by its lead does not satisfy a rule that asks the operators', async () => {
    const mallory = await sdk('mallory');
    const malloryRaw = await raw('mallory', 1);
    const leadRaw = await raw('lead', 1);
    const input = { command: 'kubectl delete deployment api' };
    const first = await call(mallory, 'bash', input);
    const operatorsRequest = waitingOn(first);
    const asked = await request(operatorsRequest);

    // The copy names everything the rule's request names: hook, session, rule, reason, digest.
    const ownRequest = await openOwnRequest(malloryRaw, { kind: 'agent', agent: 'lead' }, {
      tool: 'bash',
      input,
      input_digest: toolInputDigest(input),
      hook_id: first.hookId,
      session_id: mallory.sessionId!,
      on_expiry: 'reject',
      ...(asked.type === 'tool_approval' && asked.payload.reason !== undefined ? { reason: asked.payload.reason } : {}),
    });
    await answerAsAgent(leadRaw, ownRequest, true);
    expect(await request(ownRequest)).toMatchObject({ status: 'approved', decided_by: 'lead' });

    const presented = await call(mallory, 'bash', input, ownRequest);
    await expectRefused(presented);
    // The call still waits on the operators' request, which nobody decided.
    expect(waitingOn(presented)).toBe(operatorsRequest);
    expect((await request(operatorsRequest)).status).toBe('pending');
  });

  it('a teammate’s own tool_approval addressed to operators and approved by an approver does not satisfy the rule, nor can it become a grant', async () => {
    const mallory = await sdk('mallory');
    const malloryRaw = await raw('mallory');
    const input = { command: 'kubectl delete namespace prod' };
    const first = await call(mallory, 'bash', input);
    waitingOn(first);
    const ownRequest = await openOwnRequest(malloryRaw, { kind: 'operators' }, {
      tool: 'bash',
      input,
      input_digest: toolInputDigest(input),
      session_id: mallory.sessionId!,
    });
    // A session-wide approval of a request no rule opened is refused before anything is decided.
    const widened = await operatorCall(api[0]!, maria(), 'POST', `/requests/${ownRequest}/decision`, { approve: true, scope: 'session_tool' });
    expect(widened.status).toBe(400);
    expect((await request(ownRequest)).status).toBe('pending');
    await decide(ownRequest, { approve: true });
    await expectRefused(await call(mallory, 'bash', input, ownRequest));
  });

  it('forged context.approval ids are refused: a derived id no hook asked for, an unknown id', async () => {
    const mallory = await sdk('mallory');
    const input = { command: 'kubectl delete secret db' };
    for (const forged of [`req_tool_${randomUUID()}`, `req_${randomUUID()}`]) {
      const result = await mallory.hook('pre-tool-use', { tool: { name: 'bash', input }, approval: { request_id: forged } }, { waitForApproval: false });
      await expectRefused(result);
    }
  });

  it('another agent’s approved request does not apply to this agent’s identical call, and stays the other agent’s', async () => {
    const bob = await sdk('bob');
    const mallory = await sdk('mallory', 1);
    const input = { command: 'kubectl delete pvc data' };
    const bobs = waitingOn(await call(bob, 'bash', input));
    await decide(bobs, { approve: true });
    await expectRefused(await call(mallory, 'bash', input, bobs));
    expect((await call(bob, 'bash', input, bobs)).allowed).toBe(true);
  });

  it('an approval asked for in one session is refused in another session of the same agent', async () => {
    const first = await sdk('mallory');
    const second = await sdk('mallory', 1);
    expect(second.sessionId).not.toBe(first.sessionId);
    const input = { command: 'kubectl delete job nightly' };
    const asked = waitingOn(await call(first, 'bash', input));
    await decide(asked, { approve: true });
    await expectRefused(await call(second, 'bash', input, asked));
  });

  it('replay with other arguments: the same tool with a changed input is refused, and the approval stays for its own input', async () => {
    const mallory = await sdk('mallory');
    const asked = waitingOn(await call(mallory, 'bash', { command: 'kubectl delete pod web-1' }));
    await decide(asked, { approve: true });
    const changed = await call(mallory, 'bash', { command: 'kubectl delete deployment api' }, asked);
    await expectRefused(changed);
    expect(waitingOn(changed)).not.toBe(asked);
    expect((await call(mallory, 'bash', { command: 'kubectl delete pod web-1' }, asked)).allowed).toBe(true);
  });

  // Audit finding 7: secret-named fields were blanked before the digest, so an approval for one
  // token covered the same call with another. Now they are keyed-hash markers: the digests differ.
  it('replay with another secret: the same call with a different token is refused, and the approval stays for its own token', async () => {
    const mallory = await sdk('mallory');
    const tenant = { command: 'kubectl delete pod web-1', access_token: 'tenant-A' };
    const asked = waitingOn(await call(mallory, 'bash', tenant));
    await decide(asked, { approve: true });
    const admin = await call(mallory, 'bash', { ...tenant, access_token: 'tenant-PROD-ADMIN' }, asked);
    await expectRefused(admin);
    expect(waitingOn(admin)).not.toBe(asked);
    expect((await call(mallory, 'bash', tenant, asked)).allowed).toBe(true);
  });

  it('an approval with a modified input allows only the modified input, once; the original input is never allowed as it is', async () => {
    const mallory = await sdk('mallory');
    const original = { command: 'kubectl delete deployment api --all-namespaces' };
    const modified = { command: 'kubectl delete deployment api -n staging' };
    const asked = waitingOn(await call(mallory, 'bash', original));
    await decide(asked, { approve: true, modified_input: modified });
    // Presenting it with the modified input itself: the request was not asked for that input.
    await expectRefused(await call(mallory, 'bash', modified, asked));
    const used = await call(mallory, 'bash', original, asked);
    expect(used).toMatchObject({ allowed: true, intensity: 'control' });
    expect(used.modifications).toEqual([expect.objectContaining({ target: '/command', original: original.command, updated: modified.command })]);
    expect(used.signals.map((s) => s.header.type)).toEqual(['approval-approved']);
    expect(used.signals[0]!.payload.level).toBe('controlling');
    await expectRefused(await call(mallory, 'bash', original, asked));
  });

  it('an approval is used once: of concurrent re-sends on two gateways exactly one is allowed, later ones are refused', async () => {
    const a = await sdk('mallory');
    const b = await sdk('mallory', 1);
    const input = { command: 'kubectl delete configmap flags' };
    const asked = waitingOn(await call(a, 'bash', input));
    await decide(asked, { approve: true });
    // Re-sends in the same session, through both gateways at once.
    const sessionId = a.sessionId!;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).hook('pre-tool-use', { tool: { name: 'bash', input }, approval: { request_id: asked } }, { waitForApproval: false, sessionId })),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(1);
    for (const refused of results.filter((r) => !r.allowed)) await expectRefused(refused);
    await expectRefused(await call(a, 'bash', input, asked));
  });

  it('an expired request (on_expiry: reject) refuses, and a cancelled one is never used', async () => {
    const mallory = await sdk('mallory');
    const expiring = waitingOn(await call(mallory, 'deploy', { env: 'production' }));
    await eventually(async () => ((await request(expiring)).status === 'expired' ? true : undefined), 'the request to expire');
    await expectRefused(await call(mallory, 'deploy', { env: 'production' }, expiring));

    const input = { command: 'kubectl delete node n1' };
    const cancelling = waitingOn(await call(mallory, 'bash', input));
    expect((await mallory.cancelRequest(cancelling)).status).toBe('cancelled');
    const after = await call(mallory, 'bash', input, cancelling);
    await expectRefused(after);
    expect(waitingOn(after)).not.toBe(cancelling);
  });

  it('a decision by a viewer, or by the lead in the operators’ place, is refused and leaves the call waiting', async () => {
    const mallory = await sdk('mallory');
    const leadRaw = await raw('lead');
    const input = { command: 'kubectl delete ingress public' };
    const asked = waitingOn(await call(mallory, 'bash', input));
    const byViewer = await operatorCall(api[0]!, operators.token('op-vic'), 'POST', `/requests/${asked}/decision`, { approve: true });
    expect(byViewer.status).toBe(403);
    leadRaw.send({ type: 'response', id: 'lead-answers', response: { request_id: asked, type: 'tool_approval_response', approve: true } });
    expect(await leadRaw.next((frame) => 'id' in frame && frame.id === 'lead-answers')).toMatchObject({ type: 'error', error: { code: 'E_FORBIDDEN' } });
    expect((await request(asked)).status).toBe('pending');
    const again = await call(mallory, 'bash', input, asked);
    await expectRefused(again);
    expect(waitingOn(again)).toBe(asked);
  });

  it('a revoked grant refuses the very next hook on another gateway and worker, also when its request was never used', async () => {
    const mallory = await sdk('mallory', 1);
    const input = { command: 'kubectl delete cronjob cleanup' };
    const asked = waitingOn(await call(mallory, 'bash', input));
    const decided = await decide(asked, { approve: true, scope: 'session' });
    const grantId = decided.grant!.grant_id;
    // The grant allows the retried call (a Claude Code retry presents nothing); the request itself is never presented.
    const granted = await call(mallory, 'bash', input);
    expect(granted.allowed).toBe(true);
    expect(granted.signals[0]).toMatchObject({ header: { type: 'approval-granted' }, context: { approval: { grant_id: grantId } } });

    const revoked = await fetch(`${api[0]!}/grants/${grantId}`, { method: 'DELETE', headers: { authorization: `Bearer ${maria()}` } });
    expect(revoked.status).toBe(200);
    // The next hooks: neither the index nor the request the grant came from lets the call through.
    await expectRefused(await call(mallory, 'bash', input));
    await expectRefused(await call(mallory, 'bash', input, asked));
  });

  it('revocation racing hooks on two gateways: no hook is allowed after the revocation, by the grant’s own use count', async () => {
    const clientsOnBoth = [await sdk('bob', 0), await sdk('bob', 1)];
    const [first] = clientsOnBoth;
    const input = { command: 'kubectl delete replicaset old' };
    const asked = waitingOn(await call(first!, 'bash', input));
    const decided = await decide(asked, { approve: true, scope: 'session' });
    const grantId = decided.grant!.grant_id;
    // The second client hooks in the same session as the first (a CLI bridge carries several).
    const sessionId = first!.sessionId!;
    const hookOn = (client: AhpClient) => client.hook('pre-tool-use', { tool: { name: 'bash', input } }, { waitForApproval: false, sessionId });

    const results: HookResult[] = [];
    let stop = false;
    const loops = clientsOnBoth.map(async (client) => {
      while (!stop) results.push(await hookOn(client));
    });
    await eventually(() => (results.filter((r) => r.allowed).length >= 3 ? true : undefined), 'a few calls allowed by the grant');
    const response = await fetch(`${api[1]!}/grants/${grantId}`, { method: 'DELETE', headers: { authorization: `Bearer ${maria()}` } });
    expect(response.status).toBe(200);
    const revoked = GrantRevokeResponseSchema.parse(await response.json());
    // Hooks sent after the 200 was observed: every one refused.
    const afterRevoke = await Promise.all(clientsOnBoth.flatMap((client) => [hookOn(client), hookOn(client)]));
    stop = true;
    await Promise.all(loops);

    // The grant's use count, taken by the revocation itself in Redis, orders every allowed call
    // before the revocation: each allowed call carries its use number, none is above it, and
    // the count does not move after it.
    const usesAtRevoke = revoked.grant.uses;
    expect(usesAtRevoke).toBeGreaterThanOrEqual(3);
    const allowed = [...results, ...afterRevoke].filter((r) => r.allowed);
    expect(allowed).toHaveLength(usesAtRevoke!);
    for (const result of allowed) {
      expect(result.signals[0]).toMatchObject({ header: { type: 'approval-granted' }, context: { approval: { grant_id: grantId } } });
      expect((result.signals[0]!.context['approval'] as { use: number }).use).toBeLessThanOrEqual(usesAtRevoke!);
    }
    for (const result of afterRevoke) await expectRefused(result);
    const { json } = await operatorCall(api[0]!, maria(), 'GET', `/grants?session=${sessionId}`);
    const stored = (json as { grants: unknown[] }).grants.map((g) => ToolGrantSchema.parse(g)).find((g) => g.grant_id === grantId);
    expect(stored).toMatchObject({ uses: usesAtRevoke, revoked_by: 'op-maria' });
  });

  it('a whole-tool grant given for what one rule asks does not let a call through another rule', async () => {
    const mallory = await sdk('mallory');
    const asked = waitingOn(await call(mallory, 'bash', { command: 'kubectl delete pod a' }));
    const decided = await decide(asked, { approve: true, scope: 'session_tool' });
    expect(decided.grant).toMatchObject({ scope: 'session_tool', rules: ['pre-tool-use/prod-guard/kubectl-delete'] });
    const sameRule = await call(mallory, 'bash', { command: 'kubectl delete pod b' });
    expect(sameRule.signals[0]).toMatchObject({ header: { type: 'approval-granted' } });
    await expectRefused(await call(mallory, 'bash', { command: 'dropdb orders' }));
    await expectRefused(await call(mallory, 'bash', { command: 'kubectl delete pod c && dropdb orders' }));
  });

  // Last: it changes the configuration every test above runs under.
  it('an approval opened under a lenient rule does not satisfy a stricter one (another rule, or the same rule with stricter terms)', async () => {
    const mallory = await sdk('mallory');
    const migrate = waitingOn(await call(mallory, 'migrate', { to: 'v42' }));
    const seed = waitingOn(await call(mallory, 'seed', { rows: 100 }));
    // Both expire undecided; under the lenient rules that would allow the calls (on_expiry: approve).
    await eventually(async () => ((await request(migrate)).status === 'expired' && (await request(seed)).status === 'expired' ? true : undefined), 'both requests to expire');
    await allWorkersServe(system, await publishThroughStore(system, rulesConfig(true)));
    const strictMigrate = await call(mallory, 'migrate', { to: 'v42' }, migrate);
    await expectRefused(strictMigrate);
    expect(waitingOn(strictMigrate)).not.toBe(migrate);
    await expectRefused(await call(mallory, 'seed', { rows: 100 }, seed));
  });
});
