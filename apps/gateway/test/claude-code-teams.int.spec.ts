/**
 * Claude Code's agent-team events through POST /v1/hooks/claude-code on a real gateway
 * (in-process, the run's private Redis; the test plays the oracle worker, taking each job from the
 * queue and storing its decision): TeammateIdle and TaskCompleted are evaluated at `stop`,
 * TaskCreated at `post-tool-use`, each marked `client.team_event`; a block comes back as Claude
 * Code's `decision: "block"` (the teammate keeps working); each event lands on the agent's
 * timeline as `team_activity` and keeps the session in the fleet; a malformed team event is
 * refused with the event's block, never with an HTTP error Claude Code would read as "go ahead".
 */
import { randomUUID } from 'node:crypto';
import { ClaudeCodeHookOutputSchema, FleetResponseSchema, TimelineResponseSchema, type HookJobData, type Signal } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { claudeCodeSessionId } from '../src/claude-code/claude-code.service.js';
import { workerDecision } from './support/decisions.js';
import { postHook, hookJobTaker } from './support/coding-agent-hooks.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestStore } from './support/test-gateway.js';

const AGENT: TestAgentEntry = { id: 'claude-team', name: 'Claude team', token: newToken(), team: 'blue', role: 'lead' };
/** An agent of the same team in the tokens file: a teammate name the gateway can vouch for. */
const TEAMMATE: TestAgentEntry = { id: 'blue-dev', name: 'reviewer', token: newToken(), team: 'blue', role: 'teammate' };
const OPERATOR = { id: 'op', name: 'Op', role: 'viewer' as const, token: newToken() };
const SESSION = randomUUID();
const common = { session_id: SESSION, cwd: '/home/dev/app', transcript_path: '/home/dev/.claude/t.jsonl', permission_mode: 'default' };

let gw: TestGateway;
let store: TestStore;

beforeAll(async () => {
  gw = await startTestGateway({ name: 'claude-code-teams', agents: [AGENT, TEAMMATE], operators: [OPERATOR], env: { AHP_CLAUDE_CODE_DEADLINE_MS: '5000' } });
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterAll(async () => {
  await store?.close();
  await gw?.stop();
});

const post = (body: unknown): Promise<Response> => postHook(gw, 'claude-code', body, `Bearer ${AGENT.token}`);

/** The next job the gateway enqueued, as a worker takes it. */
const nextJob = hookJobTaker(() => store);

/** Posts `body`, decides its job as a worker with `signals`, and returns the job and Claude Code's answer. */
async function decided(body: unknown, signals: (hookId: string) => Signal[] = () => []): Promise<{ job: HookJobData; output: unknown }> {
  const response = post(body);
  const job = await nextJob();
  await store.stores.hooks.decide(job.hook_id, workerDecision(job.hook_id, job.trigger, signals(job.hook_id)), Date.now());
  const answer = await response;
  expect(answer.status).toBe(200);
  const output: unknown = await answer.json();
  expect(ClaudeCodeHookOutputSchema.safeParse(output).success).toBe(true);
  return { job, output };
}

function verificationMissing(hookId: string): Signal[] {
  return [
    {
      header: { id: randomUUID(), type: 'completion-verify', timestamp: new Date().toISOString(), source: 'int-spec-oracle', intensity: 'block', correlation_id: hookId },
      context: {},
      payload: { level: 'blocking', decision: 'deny', reason: 'no test run was reported for this task', resolvable: true, resolution_path: ['run the tests'] },
    },
  ];
}

async function timeline() {
  const response = await fetch(`${gw.httpUrl}/v1/operator/agents/${AGENT.id}/timeline?limit=50`, { headers: { authorization: `Bearer ${OPERATOR.token}` } });
  expect(response.status).toBe(200);
  return TimelineResponseSchema.parse(await response.json()).events;
}

describe('agent-team events', () => {
  it('evaluates a TaskCompleted at stop and keeps the teammate working when a rule refuses it', async () => {
    const { job, output } = await decided(
      { ...common, hook_event_name: 'TaskCompleted', task_id: '7', task_subject: 'Wire the login form', teammate_name: 'frontend', team_name: 'team-1' },
      verificationMissing,
    );
    expect(job.trigger).toBe('stop');
    expect(job.session_id).toBe(claudeCodeSessionId(AGENT.id, SESSION));
    expect(job.context).toMatchObject({ subagent: false, client: { kind: 'claude-code', team_event: 'task_completed', teammate_name: 'frontend', task: { id: '7', subject: 'Wire the login form' } } });
    expect(output).toEqual({ decision: 'block', reason: expect.stringContaining('no test run was reported for this task') });
  });

  it('lets a TeammateIdle through with {} when nothing objects, and a TaskCreated is evaluated as the TaskCreate call\'s outcome', async () => {
    const idle = await decided({ ...common, hook_event_name: 'TeammateIdle', teammate_name: 'researcher', team_name: 'team-1' });
    expect(idle.job.trigger).toBe('stop');
    expect(idle.job.context).toMatchObject({ client: { team_event: 'teammate_idle', teammate_name: 'researcher' } });
    expect(idle.output).toEqual({});
    const created = await decided({ ...common, hook_event_name: 'TaskCreated', task_id: '8', task_subject: 'Write the docs', task_description: 'docs/login.md' });
    expect(created.job.trigger).toBe('post-tool-use');
    expect(created.job.context).toMatchObject({ tool: { name: 'TaskCreate', input: { task_id: '8', subject: 'Write the docs' } }, client: { team_event: 'task_created' } });
    expect(created.output).toEqual({});
  });

  it('puts each team event on the agent\'s timeline, the refused completion with the reason it was held', async () => {
    await vi.waitFor(async () => {
      const events = (await timeline()).map((entry) => entry.event).filter((event) => event.kind === 'team_activity');
      expect(events).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ activity: 'task_completed', teammate_name: 'frontend', task: { id: '7', subject: 'Wire the login form' }, held: expect.stringContaining('no test run') }),
          expect.objectContaining({ activity: 'teammate_idle', teammate_name: 'researcher' }),
          expect.objectContaining({ activity: 'task_created', task: { id: '8', subject: 'Write the docs' } }),
        ]),
      );
      expect(events.find((event) => event.activity === 'teammate_idle')).not.toHaveProperty('held');
    }, { timeout: 5_000, interval: 100 });
  });

  it('attributes each team event to the agent of the token; a teammate or team it does not know is the agent\'s claim', async () => {
    const sender = { id: AGENT.id, name: AGENT.name, team: 'blue' };
    // Claude Code's own names ("frontend", the session's "team-1") are not in the tokens file.
    const entries = (await timeline()).filter((entry) => entry.event.kind === 'team_activity');
    const completed = entries.find((entry) => entry.event.kind === 'team_activity' && entry.event.teammate_name === 'frontend');
    expect(completed?.attribution).toEqual({ sender, names: 'claimed' });
    // No names at all (the lead created the task): nothing to doubt.
    const created = entries.find((entry) => entry.event.kind === 'team_activity' && entry.event.activity === 'task_created');
    expect(created?.attribution).toEqual({ sender, names: 'verified' });
    // An agent of the sender's team, in its team: verified, with who it is.
    await decided({ ...common, hook_event_name: 'TeammateIdle', teammate_name: 'reviewer', team_name: 'blue' });
    await vi.waitFor(async () => {
      const idle = (await timeline()).find((entry) => entry.event.kind === 'team_activity' && entry.event.teammate_name === 'reviewer');
      expect(idle?.attribution).toEqual({ sender, names: 'verified', teammate: { id: 'blue-dev', name: 'reviewer' } });
    }, { timeout: 5_000, interval: 100 });
  });

  it('keeps the session in the fleet as a claude-code agent whose last hook is the team event', async () => {
    const response = await fetch(`${gw.httpUrl}/v1/operator/fleet`, { headers: { authorization: `Bearer ${OPERATOR.token}` } });
    const row = FleetResponseSchema.parse(await response.json()).agents.find((agent) => agent.agent.id === AGENT.id);
    expect(row).toMatchObject({ client: 'claude-code', session_id: claudeCodeSessionId(AGENT.id, SESSION) });
    expect(row?.status).not.toBe('offline');
  });

  it('refuses a malformed TaskCompleted with the event\'s block (fail closed), naming the field, without evaluating it', async () => {
    const before = nextJob.taken.size;
    const response = await post({ ...common, hook_event_name: 'TaskCompleted', task_subject: 'no id' });
    expect(response.status).toBe(200);
    const output = ClaudeCodeHookOutputSchema.parse(await response.json());
    expect(output).toMatchObject({ decision: 'block' });
    expect(output.reason).toContain('task_id');
    expect(output.reason).toContain('E_INVALID_FRAME');
    const jobs = (await Promise.all(store.queue.queues.map((queue) => queue.getJobs(['wait', 'waiting', 'prioritized', 'delayed', 'active'])))).flat();
    expect(jobs.filter((job) => !nextJob.taken.has(job.data.hook_id))).toEqual([]);
    expect(nextJob.taken.size).toBe(before);
  });

  it('still answers 400 for a malformed body of an event that cannot be blocked', async () => {
    const response = await post({ ...common, hook_event_name: 'SessionStart', source: 42 });
    expect(response.status).toBe(400);
  });
});
