/**
 * Claude Code's agent-team events (TeammateIdle, TaskCreated, TaskCompleted): how their input is
 * parsed, which trigger and context they are, how a decision reads as their answer, and the
 * timeline event they leave (docs/claude-code.md, "Agent teams").
 */
import { randomUUID } from 'node:crypto';
import {
  ClaudeCodeHookInputSchema,
  ClaudeCodeHookOutputSchema,
  AgentEventSchema,
  aggregateSignals,
  failurePolicyDecision,
  parseHookContext,
  type ClaudeCodeHookInput,
  type HookDecision,
  type Signal,
} from '@ahp/protocol';
import { compileHooksConfig, createMemoryRuleCounters, parseHooksConfig } from '@ahp/oracles';
import { describe, expect, it } from 'vitest';
import { OperatorApiError } from '../operator-api/api-error.js';
import { claudeCodeDialect } from './claude-code-dialect.js';
import { CLAUDE_CODE_TRIGGERS, hookContext, refusedOutput, teamEventOf, toClaudeCodeOutput } from './claude-code-mapping.js';
import { teamActivityEvent } from './claude-code-team-activity.js';

const HOOK_ID = randomUUID();
const NOW = '2026-01-01T00:00:00.000Z';
const common = { session_id: 'sess-1', transcript_path: '/t.jsonl', cwd: '/app', permission_mode: 'default' };
const IDLE = { ...common, hook_event_name: 'TeammateIdle', teammate_name: 'researcher', team_name: 'session-team' };
const CREATED = { ...common, hook_event_name: 'TaskCreated', task_id: '3', task_subject: 'Add the login form', task_description: 'Email and password', teammate_name: 'lead' };
const COMPLETED = { ...common, hook_event_name: 'TaskCompleted', task_id: '3', task_subject: 'Add the login form', teammate_name: 'frontend', team_name: 'session-team' };

function parsed(body: unknown): ClaudeCodeHookInput {
  return claudeCodeDialect.parse(body);
}

function decide(trigger: HookDecision['trigger'], signals: Signal[]): HookDecision {
  return aggregateSignals({ hookId: HOOK_ID, trigger, signals, now: NOW });
}

function block(message: string): Signal {
  return {
    header: { id: randomUUID(), type: 'completion-verify', timestamp: NOW, source: 'spec', intensity: 'block', correlation_id: HOOK_ID },
    context: {},
    payload: { level: 'blocking', decision: 'deny', reason: message, resolvable: true, resolution_path: ['run the tests and report them'] },
  };
}

function warn(message: string): Signal {
  return {
    header: { id: randomUUID(), type: 'quality', timestamp: NOW, source: 'spec', intensity: 'prompt', correlation_id: HOOK_ID },
    context: {},
    payload: { level: 'prompting', decision: 'warn', severity: 'medium', message, suggestions: [], continue_allowed: true },
  };
}

describe('parsing', () => {
  it('reads each team event with its team, teammate and task fields', () => {
    expect(parsed(IDLE)).toMatchObject({ hook_event_name: 'TeammateIdle', teammate_name: 'researcher', team_name: 'session-team' });
    expect(parsed(CREATED)).toMatchObject({ hook_event_name: 'TaskCreated', task_id: '3', task_subject: 'Add the login form', task_description: 'Email and password' });
    expect(parsed(COMPLETED)).toMatchObject({ hook_event_name: 'TaskCompleted', task_id: '3', teammate_name: 'frontend' });
  });

  it('keeps fields a newer Claude Code adds, and accepts a team event without teammate or team', () => {
    expect(parsed({ ...COMPLETED, agent_id: 'a-1' })).toMatchObject({ agent_id: 'a-1' });
    expect(parsed({ ...common, hook_event_name: 'TeammateIdle' }).hook_event_name).toBe('TeammateIdle');
  });

  it('refuses a task event without its task id, or with a field of the wrong type, naming the field', () => {
    const { task_id: _omitted, ...noId } = COMPLETED;
    for (const body of [noId, { ...CREATED, task_subject: 42 }, { ...IDLE, teammate_name: '' }, { ...COMPLETED, task_id: 'x'.repeat(201) }]) {
      let error: unknown;
      try {
        parsed(body);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(OperatorApiError);
      expect((error as OperatorApiError).error.code).toBe('E_INVALID_FRAME');
      expect(ClaudeCodeHookInputSchema.safeParse(body).success).toBe(false);
    }
  });

  it('finds the team event of a body it cannot parse, so the refusal is the event\'s block (fail closed)', () => {
    expect(teamEventOf({ hook_event_name: 'TaskCompleted' })).toBe('TaskCompleted');
    expect(teamEventOf({ hook_event_name: 'TeammateIdle', teammate_name: 7 })).toBe('TeammateIdle');
    for (const body of [null, 'TaskCompleted', { hook_event_name: 'Stop' }, { hook_event_name: 'toString' }, { hook_event_name: ['TaskCreated'] }]) expect(teamEventOf(body)).toBeUndefined();
    const refusal = refusedOutput('TaskCompleted', { code: 'E_INVALID_FRAME', message: 'invalid Claude Code hook input: task_id: required' });
    expect(refusal).toEqual({ decision: 'block', reason: 'Blocked by AHP (fail-closed): invalid Claude Code hook input: task_id: required (E_INVALID_FRAME)' });
    expect(ClaudeCodeHookOutputSchema.safeParse(refusal).success).toBe(true);
  });
});

describe('trigger and context', () => {
  it('maps TeammateIdle and TaskCompleted to stop, TaskCreated to post-tool-use (its TaskCreate call)', () => {
    expect(claudeCodeDialect.trigger(parsed(IDLE))).toBe('stop');
    expect(claudeCodeDialect.trigger(parsed(COMPLETED))).toBe('stop');
    expect(claudeCodeDialect.trigger(parsed(CREATED))).toBe('post-tool-use');
    expect(claudeCodeDialect.phase(parsed(IDLE))).toBe('during');
  });

  it('marks the context with client.team_event, the team, the teammate and the task; each fits its trigger\'s schema', () => {
    const idle = hookContext(parsed(IDLE));
    expect(idle).toMatchObject({ subagent: false, client: { kind: 'claude-code', hook_event_name: 'TeammateIdle', team_event: 'teammate_idle', teammate_name: 'researcher', team_name: 'session-team' } });
    expect(idle['client']).not.toHaveProperty('task');
    const completed = hookContext(parsed(COMPLETED));
    expect(completed).toMatchObject({ client: { team_event: 'task_completed', task: { id: '3', subject: 'Add the login form' } } });
    const created = hookContext(parsed(CREATED));
    expect(created).toMatchObject({
      tool: { name: 'TaskCreate', input: { task_id: '3', subject: 'Add the login form', description: 'Email and password' } },
      client: { team_event: 'task_created', teammate_name: 'lead', task: { id: '3', description: 'Email and password' } },
    });
    for (const body of [IDLE, CREATED, COMPLETED]) {
      const input = parsed(body);
      const result = parseHookContext(CLAUDE_CODE_TRIGGERS[input.hook_event_name], hookContext(input));
      expect(result.ok ? 'ok' : result.error.message, input.hook_event_name).toBe('ok');
    }
  });

  it('cuts a task description longer than the context\'s text limit rather than refusing the hook', () => {
    const input = parsed({ ...COMPLETED, task_description: 'd'.repeat(20_000) });
    const result = parseHookContext('stop', hookContext(input));
    expect(result.ok).toBe(true);
  });
});

describe('answers', () => {
  it('keeps a teammate working, and leaves a task open, with decision "block" and the rule\'s reason', () => {
    for (const body of [IDLE, COMPLETED]) {
      const output = toClaudeCodeOutput(parsed(body), decide('stop', [block('no test run was reported for this task')]));
      expect(output).toEqual({ decision: 'block', reason: expect.stringContaining('no test run was reported for this task') });
      // Never `continue: false`: that would stop the teammate outright instead of keeping it at work.
      expect(output).not.toHaveProperty('continue');
      expect(ClaudeCodeHookOutputSchema.safeParse(output).success).toBe(true);
    }
  });

  it('answers {} when nothing objects, and warnings as a systemMessage (the team events take no additionalContext)', () => {
    expect(toClaudeCodeOutput(parsed(COMPLETED), decide('stop', []))).toEqual({});
    const warned = toClaudeCodeOutput(parsed(IDLE), decide('stop', [warn('two tasks are still open')]));
    expect(warned).toEqual({ systemMessage: 'AHP: two tasks are still open' });
    expect(ClaudeCodeHookOutputSchema.safeParse(warned).success).toBe(true);
  });

  it('blocks with the failure policy\'s cause when the oracles cannot answer and the policy fails closed', () => {
    const decision = failurePolicyDecision({ hookId: HOOK_ID, trigger: 'stop', policy: 'fail_closed', code: 'E_TIMEOUT', message: 'no oracle answered in time', now: NOW });
    const output = toClaudeCodeOutput(parsed(COMPLETED), decision);
    expect(output).toMatchObject({ decision: 'block' });
    expect(ClaudeCodeHookOutputSchema.safeParse(output).success).toBe(true);
  });
});

describe('timeline', () => {
  it('records each team event as team_activity, with the hold reason when AHP kept the teammate working', () => {
    const idle = teamActivityEvent(parsed(IDLE), decide('stop', []));
    expect(idle).toEqual({ kind: 'team_activity', activity: 'teammate_idle', teammate_name: 'researcher', team_name: 'session-team' });
    const held = teamActivityEvent(parsed(COMPLETED), decide('stop', [block('verification missing')]));
    expect(held).toMatchObject({ activity: 'task_completed', task: { id: '3', subject: 'Add the login form' }, held: expect.stringContaining('verification missing') });
    expect(teamActivityEvent(parsed(CREATED), decide('post-tool-use', []))).toMatchObject({ activity: 'task_created', task: { id: '3' } });
    for (const event of [idle, held]) expect(AgentEventSchema.safeParse(event).success).toBe(true);
  });

  it('records nothing for the other events', () => {
    expect(teamActivityEvent(parsed({ ...common, hook_event_name: 'Stop' }), decide('stop', []))).toBeUndefined();
  });
});

describe('a rule at stop (the one docs/claude-code.md shows), evaluated by the rules engine on the mapped context', () => {
  const yaml = [
    'hooks:',
    '  stop:',
    '    oracles:',
    '      - name: team-done-means-verified',
    '        use: rules',
    '        rules:',
    '          - id: task-needs-verification',
    `            condition: 'default(client.team_event, "") == "task_completed" and not (default(client.task.description, "") matches /verified:/)'`,
    '            intensity: block',
    `            message: "a task is completed with its verification only: run the tests and note 'verified: <command, result>' in the task"`,
  ].join('\n');

  async function answer(body: Record<string, unknown>) {
    const parsedConfig = parseHooksConfig(yaml);
    if (!parsedConfig.ok) throw new Error(JSON.stringify(parsedConfig));
    const compiled = compileHooksConfig(parsedConfig.config, { version: 1 });
    const input = parsed(body);
    let n = 0;
    const decision = await compiled.evaluate(
      { hookId: HOOK_ID, trigger: CLAUDE_CODE_TRIGGERS[input.hook_event_name], context: hookContext(input), agent: { id: 'a', name: 'A', team: 'blue', role: 'teammate' }, sessionId: 'cc-1' },
      { now: () => new Date(NOW), newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, counters: createMemoryRuleCounters() },
    );
    return toClaudeCodeOutput(input, decision);
  }

  it('refuses a TaskCompleted without its verification: Claude Code leaves the task open and the teammate at work', async () => {
    expect(await answer(COMPLETED)).toEqual({ decision: 'block', reason: expect.stringContaining('a task is completed with its verification only') });
  });

  it('lets a verified TaskCompleted, a TeammateIdle and an ordinary Stop through', async () => {
    expect(await answer({ ...COMPLETED, task_description: 'verified: npm test, 212 passed' })).toEqual({});
    expect(await answer(IDLE)).toEqual({});
    expect(await answer({ ...common, hook_event_name: 'Stop', stop_hook_active: false })).toEqual({});
  });
});
