/**
 * Codex's answers checked against OpenAI's own published output schemas
 * (test/fixtures/codex-schemas/, copied verbatim from openai/codex at the commits
 * docs/coding-agents.md targets), validated with a JSON Schema validator rather than with our
 * zod copy of them (CODEX_OUTPUT_SCHEMAS): a field we mistyped in both the dialect and the copy
 * would pass the copy but not these. Every kind of answer the dialect produces is here — no
 * signal, block, control, prompt, aid, an operator's approval, the failure policy, a refusal
 * before evaluation, a held permission prompt's fallback — which covers every answer the gateway
 * gives in the integration and end-to-end tests. `ahp hook codex` prints the gateway's answer or,
 * when it cannot use it, one of its own three (tools/cli/src/codex-hook.ts, codexUnreachableAnswer),
 * written out here as the command prints them.
 */
import { randomUUID } from 'node:crypto';
import {
  aggregateSignals,
  CODEX_EVENTS,
  CODEX_OUTPUT_SCHEMAS,
  failurePolicyDecision,
  type CodexEvent,
  type CodexHookInput,
  type HookDecision,
  type Signal,
  type SignalPayload,
} from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { CODEX_SCHEMA_FILES, codexSchemaText, publishedCodexVerdict } from '../../test/support/codex-published-schemas.js';
import { CODEX_TRIGGERS, codexDialect, codexRefusedOutput, toCodexOutput } from './codex-dialect.js';

const HOOK_ID = randomUUID();
const NOW = '2026-01-01T00:00:00.000Z';
const COMMON = { session_id: 'thread-1', transcript_path: null, cwd: '/repo', model: 'gpt-5-codex', permission_mode: 'default', turn_id: 'turn-1' };
const BASH = { tool_name: 'Bash', tool_input: { command: 'git push --force' }, tool_use_id: 'call_1' };

const INPUTS: Record<CodexEvent, CodexHookInput> = {
  SessionStart: { ...COMMON, hook_event_name: 'SessionStart', source: 'startup' },
  PreToolUse: { ...COMMON, ...BASH, hook_event_name: 'PreToolUse' },
  PermissionRequest: { ...COMMON, hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'git push --force', description: 'publish' } },
  PostToolUse: { ...COMMON, ...BASH, hook_event_name: 'PostToolUse', tool_response: 'ok' },
  UserPromptSubmit: { ...COMMON, hook_event_name: 'UserPromptSubmit', prompt: 'ship it' },
  Stop: { ...COMMON, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'done' },
  PreCompact: { ...COMMON, hook_event_name: 'PreCompact', trigger: 'auto' },
  PostCompact: { ...COMMON, hook_event_name: 'PostCompact', trigger: 'auto' },
  SubagentStart: { ...COMMON, hook_event_name: 'SubagentStart', agent_id: 'agent-1', agent_type: 'explorer' },
  SubagentStop: { ...COMMON, hook_event_name: 'SubagentStop', agent_id: 'agent-1', agent_type: 'explorer', agent_transcript_path: null, stop_hook_active: false, last_assistant_message: 'found it' },
  StopFailure: { ...COMMON, hook_event_name: 'StopFailure', error: 'server_error', error_details: '500', last_assistant_message: null },
};

function signal(type: string, payload: SignalPayload): Signal {
  const intensity = ({ blocking: 'block', controlling: 'control', prompting: 'prompt', aiding: 'aid' } as const)[payload.level];
  return { header: { id: randomUUID(), type, timestamp: NOW, source: 'spec', intensity, correlation_id: HOOK_ID }, context: {}, payload };
}

/** Each kind of decision the oracles and the operator API produce, by name. */
const SIGNALS: Record<string, () => Signal[]> = {
  'no signal': () => [],
  block: () => [signal('policy', { level: 'blocking', decision: 'deny', reason: 'force pushes are not allowed', resolvable: true, resolution_path: ['push a branch'] })],
  'block waiting for an operator': () => [
    signal('approval-required', {
      level: 'blocking',
      decision: 'deny',
      reason: 'Waiting for an operator\'s decision on approval request req_1 (deadline 2026-01-01T00:10:00.000Z).',
      resolvable: true,
      resolution_path: ['wait'],
      resolution: { kind: 'await_approval', request_id: 'req_1', deadline: '2026-01-01T00:10:00.000Z' },
    }),
  ],
  'control of the command': () => [
    signal('policy', { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: 'tool.input.command', original: null, updated: 'git push --force-with-lease', reason: 'safer' }], reversible: true }),
  ],
  'control that cannot be applied': () => [
    signal('policy', { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: '__proto__.polluted', original: null, updated: 'x', reason: 'bad' }], reversible: true }),
  ],
  prompt: () => [signal('quality', { level: 'prompting', decision: 'warn', severity: 'high', message: 'this touches prod', suggestions: ['ask first'], continue_allowed: true })],
  aid: () => [signal('context-loaded', { level: 'aiding', decision: 'suggest', context: 'the runbook is in docs/', suggestions: [] })],
  'an operator\'s approval': () => [signal('approval-approved', { level: 'aiding', decision: 'suggest', context: 'Approved by op-1 (approval request req_1)', suggestions: [] })],
  'prompt and aid together': () => [
    signal('quality', { level: 'prompting', decision: 'warn', severity: 'low', message: 'style', suggestions: [], continue_allowed: true }),
    signal('context-loaded', { level: 'aiding', decision: 'suggest', context: 'see CONTRIBUTING', suggestions: [] }),
  ],
};

function decisionOf(event: CodexEvent, signals: Signal[]): HookDecision {
  return aggregateSignals({ hookId: HOOK_ID, trigger: CODEX_TRIGGERS[event], signals, now: NOW });
}

/** Every answer the dialect gives, named: [event, what, answer]. */
function everyAnswer(): [CodexEvent, string, unknown][] {
  const answers: [CodexEvent, string, unknown][] = [];
  for (const event of CODEX_EVENTS) {
    for (const [what, signals] of Object.entries(SIGNALS)) answers.push([event, what, toCodexOutput(INPUTS[event], decisionOf(event, signals()))]);
    for (const policy of ['fail_closed', 'fail_open'] as const) {
      const decision = failurePolicyDecision({ hookId: HOOK_ID, trigger: CODEX_TRIGGERS[event], policy, code: 'E_TIMEOUT', message: 'no oracle answered', now: NOW });
      answers.push([event, `failure policy ${policy}`, toCodexOutput(INPUTS[event], decision)]);
    }
    for (const code of ['E_FRAME_TOO_LARGE', 'E_RATE_LIMITED', 'E_INVALID_FRAME'] as const) {
      answers.push([event, `refused before evaluation (${code})`, codexRefusedOutput(event, { code, message: 'refused' })]);
    }
  }
  // ahp hook codex's own answers when the gateway cannot be asked, refuses, or answers nonsense.
  const cause = 'AHP could not be asked (the gateway refused the hook (HTTP 400, E_INVALID_FRAME)); denied because tool calls fail closed';
  answers.push(['PreToolUse', 'ahp hook codex, gateway not usable', { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: cause } }]);
  answers.push(['PermissionRequest', 'ahp hook codex, gateway not usable', { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: cause } } }]);
  for (const event of CODEX_EVENTS.filter((name) => name !== 'PreToolUse' && name !== 'PermissionRequest')) {
    answers.push([event, 'ahp hook codex, gateway not usable', { systemMessage: 'AHP could not be asked (connect ECONNREFUSED); continuing without its checks' }]);
  }
  answers.push(['PermissionRequest', 'held prompt, nobody in time (dialog)', codexDialect.promptFallback(INPUTS.PermissionRequest, 'dialog', 'AHP: not decided in time')]);
  answers.push(['PermissionRequest', 'held prompt, nobody in time (deny)', codexDialect.promptFallback(INPUTS.PermissionRequest, 'deny', 'AHP: not decided in time')]);
  return answers;
}

describe('the fixtures', () => {
  it('are the published schemas of every event AHP maps, each titled as its file', () => {
    for (const event of CODEX_EVENTS) {
      expect(JSON.parse(codexSchemaText(event))).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', title: `${CODEX_SCHEMA_FILES[event]}.command.output`, additionalProperties: false });
    }
  });
});

describe('every answer of the Codex dialect', () => {
  it.each(everyAnswer())('%s, %s: accepted by OpenAI\'s published schema and by our copy', (event, _what, output) => {
    const verdict = publishedCodexVerdict(event, output);
    expect(verdict.ok, `${JSON.stringify(output)}: ${verdict.errors}`).toBe(true);
    expect(CODEX_OUTPUT_SCHEMAS[event].safeParse(output).success, JSON.stringify(output)).toBe(true);
  });

  it('includes the answers the gateway and ahp hook codex give in the integration and end-to-end tests', () => {
    const answers = everyAnswer().map(([event, , output]) => [event, output]);
    // The forms codex.int.spec.ts and e2e/system/coding-agents.int.spec.ts assert.
    for (const expected of [
      ['PreToolUse', {}],
      ['PreToolUse', { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'Blocked by AHP: force pushes are not allowed To resolve: push a branch.' } }],
      ['PermissionRequest', { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } }],
      ['PermissionRequest', { systemMessage: 'AHP: not decided in time' }],
      ['Stop', {}],
    ] as const) {
      expect(answers).toContainEqual(expected);
    }
  });
});

describe('our copy is no looser than the published schemas where it matters', () => {
  // Answers OpenAI's schemas refuse. `ahp hook codex` checks the gateway's answer with our copy
  // before printing it, so the copy must refuse them too: Codex would drop them whole.
  const refused: [CodexEvent, string, unknown][] = [
    ['PreToolUse', 'a field of another event', { decision: { behavior: 'deny' } }],
    ['PreToolUse', 'another event\'s hookSpecificOutput field', { hookSpecificOutput: { hookEventName: 'PreToolUse', decision: { behavior: 'deny' } } }],
    ['PermissionRequest', 'a behavior Codex has not', { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'ask' } } }],
    ['PermissionRequest', 'a decision without behavior', { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { message: 'no' } } }],
    ['PermissionRequest', 'PreToolUse\'s fields', { hookSpecificOutput: { hookEventName: 'PermissionRequest', permissionDecision: 'deny' } }],
    ['Stop', 'a hookSpecificOutput', { hookSpecificOutput: { hookEventName: 'Stop' } }],
    ['Stop', 'a decision other than block', { decision: 'approve' }],
    ['SessionStart', 'another event\'s name', { hookSpecificOutput: { hookEventName: 'Stop', additionalContext: 'x' } }],
    ['SubagentStart', 'a decision', { decision: 'block', reason: 'no' }],
    ['PreCompact', 'a hookSpecificOutput', { hookSpecificOutput: { hookEventName: 'PreCompact' } }],
    ['PostCompact', 'a decision', { decision: 'block', reason: 'no' }],
    ['StopFailure', 'a decision', { decision: 'block', reason: 'no' }],
    ['UserPromptSubmit', 'a systemMessage that is not a string', { systemMessage: 1 }],
    ['PostToolUse', 'suppressOutput true (only false is allowed there)', { suppressOutput: true }],
  ];

  it.each(refused)('%s with %s', (event, _what, output) => {
    expect(publishedCodexVerdict(event, output).ok).toBe(false);
    expect(CODEX_OUTPUT_SCHEMAS[event].safeParse(output).success).toBe(false);
  });

  it('differs only where Codex\'s output parser reads more than the schema lists: PreToolUse\'s legacy decision "block" with a reason', () => {
    // codex-rs/hooks/src/engine/output_parser.rs (0ea83813ef86) reads a top-level decision and
    // reason at PreToolUse; the published schema (3be4afd35fc4) does not list them. The dialect
    // never sends them at PreToolUse (codexRefusedOutput uses them only for an unknown event).
    const legacy = { decision: 'block', reason: 'no' };
    expect(publishedCodexVerdict('PreToolUse', legacy).ok).toBe(false);
    expect(CODEX_OUTPUT_SCHEMAS.PreToolUse.safeParse(legacy).success).toBe(true);
    expect(everyAnswer().filter(([event, , output]) => event === 'PreToolUse' && typeof output === 'object' && output !== null && 'decision' in output)).toEqual([]);
  });
});
