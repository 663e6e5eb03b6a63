import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SEED_SIGNAL_LOG_LINES, seedSignal } from '../test/fixtures/domain-seeds.js';
import { INTENSITIES } from './intensity.js';
import { SignalSchema } from './signal.js';
import {
  ACTIONS_BY_INTENSITY,
  CONSUMPTION_ACTIONS,
  ConsumptionActionSchema,
  SignalLogEntrySchema,
  SignalResponseSchema,
  actionsForIntensity,
  checkSignalResponse,
  intensityOfAction,
  isActionValidFor,
  type ConsumptionAction,
} from './signal-response.js';

function issues(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  expect(result.success).toBe(false);
  return result.error?.issues ?? [];
}

const SIGNAL_ID = '00000000-0000-4000-8000-000000000001';

describe('ConsumptionActionSchema', () => {
  it('has exactly the ten actions of docs/spec/spectrum-and-signals.md#consumption-actions', () => {
    expect([...CONSUMPTION_ACTIONS].sort()).toEqual(
      [
        'retry_after_fix',
        'proceed_with_risk',
        'abort',
        'accept_modification',
        'reject_modification',
        'acknowledge',
        'apply_suggestion',
        'dismiss',
        'suggestion_applied',
        'suggestion_deferred',
      ].sort(),
    );
    expect(ConsumptionActionSchema.safeParse('ignore').error?.issues[0]?.code).toBe('invalid_value');
  });

  it('partitions the actions by intensity', () => {
    expect(ACTIONS_BY_INTENSITY).toEqual({
      block: ['retry_after_fix', 'proceed_with_risk', 'abort'],
      control: ['accept_modification', 'reject_modification'],
      prompt: ['acknowledge', 'apply_suggestion', 'dismiss'],
      aid: ['suggestion_applied', 'suggestion_deferred'],
    });
    const flattened = INTENSITIES.flatMap((i) => actionsForIntensity(i));
    expect(flattened).toEqual([...CONSUMPTION_ACTIONS]);
    for (const action of CONSUMPTION_ACTIONS) expect(actionsForIntensity(intensityOfAction(action))).toContain(action);
  });

  it('a block cannot be dismissed or acknowledged; a prompt can', () => {
    expect(isActionValidFor('block', 'dismiss')).toBe(false);
    expect(isActionValidFor('block', 'acknowledge')).toBe(false);
    expect(isActionValidFor('block', 'retry_after_fix')).toBe(true);
    expect(isActionValidFor('prompt', 'dismiss')).toBe(true);
    expect(isActionValidFor('control', 'suggestion_applied')).toBe(false);
    expect(isActionValidFor('aid', 'suggestion_deferred')).toBe(true);
  });

  it('intensityOfAction throws a TypeError for a value that slipped past the types', () => {
    expect(() => intensityOfAction('ignore' as ConsumptionAction)).toThrow(TypeError);
  });
});

describe('SignalResponseSchema', () => {
  const response = { signal_id: SIGNAL_ID, consumed_at: '2026-02-09T10:00:05Z', action: 'retry_after_fix' };

  it('parses a minimal response and one with details', () => {
    expect(SignalResponseSchema.parse(response)).toEqual(response);
    const withDetails = { ...response, details: { fixed: ['chk-003'], note: '完成 API 文档' } };
    expect(SignalResponseSchema.parse(withDetails)).toEqual(withDetails);
  });

  it('rejects a non-uuid signal id, a missing timestamp, unknown keys, unsafe details', () => {
    expect(issues(SignalResponseSchema, { ...response, signal_id: 'abc' })[0]).toMatchObject({ path: ['signal_id'] });
    const { consumed_at: _c, ...noTime } = response;
    expect(issues(SignalResponseSchema, noTime)[0]).toMatchObject({ code: 'invalid_type', path: ['consumed_at'] });
    expect(issues(SignalResponseSchema, { ...response, consumed: true })[0]).toMatchObject({ code: 'unrecognized_keys' });
    const details = JSON.parse('{"__proto__":{"admin":true}}');
    expect(issues(SignalResponseSchema, { ...response, details })[0]).toMatchObject({ path: ['details', '__proto__'] });
  });
});

describe('checkSignalResponse', () => {
  const block = SignalSchema.parse(seedSignal('block'));
  const base = { signal_id: SIGNAL_ID, consumed_at: '2026-02-09T10:00:05Z' } as const;

  it('accepts an action of the signal intensity', () => {
    expect(checkSignalResponse(block, { ...base, action: 'abort' })).toEqual({ ok: true });
  });

  it('refuses to let a block be dismissed, naming the valid actions', () => {
    const result = checkSignalResponse(block, { ...base, action: 'dismiss' });
    expect(result).toMatchObject({ ok: false, code: 'action_not_allowed' });
    expect(result.ok === false && result.message).toContain('retry_after_fix, proceed_with_risk, abort');
  });

  it('refuses a response for another signal', () => {
    const other = { ...base, signal_id: '00000000-0000-4000-8000-000000000099', action: 'abort' } as const;
    expect(checkSignalResponse(block, other)).toMatchObject({ ok: false, code: 'signal_mismatch' });
  });
});

describe('SignalLogEntrySchema', () => {
  it('parses the three JSONL lines of the design example log (docs/spec/signal-log.md#signal-log-lines)', () => {
    for (const line of SEED_SIGNAL_LOG_LINES) {
      const parsed: unknown = JSON.parse(line);
      expect(SignalLogEntrySchema.parse(parsed)).toEqual(parsed);
    }
  });

  const entry = JSON.parse(SEED_SIGNAL_LOG_LINES[0]!) as Record<string, unknown>;

  it('requires the action of a consumed signal and forbids one for an unconsumed signal', () => {
    const { action: _a, ...noAction } = entry;
    expect(issues(SignalLogEntrySchema, noAction)[0]).toMatchObject({ path: ['action'], message: expect.stringContaining('consumed') });
    expect(SignalLogEntrySchema.parse({ ...noAction, consumed: false }).consumed).toBe(false);
    expect(issues(SignalLogEntrySchema, { ...entry, consumed: false })[0]).toMatchObject({ path: ['action'] });
  });

  it('rejects an action that does not fit the intensity', () => {
    expect(issues(SignalLogEntrySchema, { ...entry, action: 'dismiss' })[0]).toMatchObject({
      path: ['action'],
      message: 'action "dismiss" cannot answer a block signal',
    });
  });

  it('accepts the optional join ids, rejects other keys', () => {
    const joined = { ...entry, signal_id: SIGNAL_ID, hook_id: SIGNAL_ID, type: 'quality-gate' };
    expect(SignalLogEntrySchema.parse(joined)).toEqual(joined);
    expect(issues(SignalLogEntrySchema, { ...entry, agent: 'alice' })[0]).toMatchObject({ code: 'unrecognized_keys' });
  });
});
