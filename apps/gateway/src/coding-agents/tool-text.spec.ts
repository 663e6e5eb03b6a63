import { LIMITS, failurePolicyDecision, type JsonObject } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { inspectableContext, partlyInspected } from './tool-text.js';

const result = (stdout: string): JsonObject => ({ tool: { name: 'Bash', input: { command: 'cat log' }, response: { stdout, stderr: '' } } });
const write = (content: string): JsonObject => ({ tool: { name: 'Write', input: { file_path: 'a', content } } });

describe('inspectableContext', () => {
  it('passes a context within the limits as it is, 200 KiB of tool text included', () => {
    const context = write('w'.repeat(200 * 1024));
    expect(inspectableContext(context, 'pre-tool-use', 'fail_closed')).toEqual({ kind: 'inspect', context, cut: [] });
  });

  it('refuses tool input over the limits before the call, whatever the policy', () => {
    for (const policy of ['fail_open', 'fail_closed'] as const) {
      expect(inspectableContext(write('w'.repeat(LIMITS.maxLongText + 1)), 'pre-tool-use', policy)).toMatchObject({
        kind: 'refused',
        partial: false,
        error: { code: 'E_INVALID_FRAME', message: `the hook input exceeds the hook context limits at tool.input.content: string longer than ${LIMITS.maxLongText} characters` },
      });
    }
  });

  it('a tool result over the limits: fail_closed refuses it with its sizes, fail_open keeps what fits', () => {
    const context = result('r'.repeat(LIMITS.maxLongText + 7));
    expect(inspectableContext(context, 'post-tool-use', 'fail_closed')).toMatchObject({
      kind: 'refused',
      partial: true,
      error: { code: 'E_INVALID_FRAME', details: { reason: 'too_large_to_inspect', limit_chars: LIMITS.maxLongText } },
    });
    const open = inspectableContext(context, 'post-tool-use', 'fail_open');
    expect(open).toMatchObject({ kind: 'inspect', cut: [{ path: 'tool.response.stdout', chars: LIMITS.maxLongText + 7, kept: LIMITS.maxLongText }] });
  });

  it('a tool result with more than tool text over the limits is refused whatever the policy', () => {
    const context = { ...result('r'.repeat(LIMITS.maxLongText + 7)), extra: { note: 'n'.repeat(LIMITS.maxJsonString + 1) } };
    expect(inspectableContext(context, 'post-tool-use', 'fail_open')).toMatchObject({ kind: 'refused', partial: false, path: 'extra.note' });
  });
});

describe('partlyInspected', () => {
  it('adds a warning naming what the rules read', () => {
    const decision = failurePolicyDecision({ hookId: 'h', trigger: 'post-tool-use', policy: 'fail_open', code: 'E_TIMEOUT', message: 'late', now: new Date(0).toISOString() });
    const marked = partlyInspected(decision, [{ path: 'tool.output', chars: 300_000, kept: LIMITS.maxLongText }]);
    expect(marked.warnings).toEqual([`this tool result was inspected in part (fail-open): the rules read the first ${LIMITS.maxLongText} of the 300000 characters of tool.output; AHP inspects at most ${LIMITS.maxLongText} characters a string.`]);
    expect(decision.warnings).toEqual([]);
  });
});
