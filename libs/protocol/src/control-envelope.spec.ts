import { describe, expect, it, vi } from 'vitest';
import { SEED_ENVELOPE_REPLAN, SEED_ENVELOPE_STEP_DONE } from '../test/fixtures/domain-seeds.js';
import {
  ControlEnvelopeSchema,
  ControlSignalEventSchema,
  MAX_CONTROL_OUTPUT_CHARS,
  MAX_ENVELOPE_CHARS,
  classifyControlOutput,
  controlSignalEvent,
  detectLegacyControl,
  tryParseControlEnvelope,
} from './control-envelope.js';

describe.each(['seed', 'strict'] as const)('docs/spec/control-envelope.md#acceptance-cases, %s mode', (mode) => {
  it('AC1: {"control": "step_done"} is recognised as step done', () => {
    expect(classifyControlOutput('{"control": "step_done"}', { mode })).toEqual({ kind: 'structured', envelope: { control: 'step_done' } });
  });

  it('AC2: {"control": "replan"} triggers replanning', () => {
    expect(classifyControlOutput('{"control": "replan"}', { mode })).toEqual({ kind: 'structured', envelope: { control: 'replan' } });
  });

  it('AC3: the legacy STEP_DONE string still works but carries a warning', () => {
    const result = classifyControlOutput('All tests pass.\nSTEP_DONE', { mode });
    expect(result).toMatchObject({ kind: 'legacy', control: 'step_done' });
    expect(result.kind === 'legacy' && result.warning).toContain('{"control":"step_done"}');
  });

  it('AC4: unrelated JSON such as {"tool": "read_file"} is not a control signal', () => {
    expect(classifyControlOutput('{"tool": "read_file"}', { mode })).toEqual({ kind: 'none' });
  });
});

describe('seed mode (the default): the lenient reading of docs/spec/control-envelope.md#read-modes', () => {
  it.each([
    ['at a sentence end', 'All tests pass, so this step is finished: STEP_DONE.', 'step_done'],
    ['inside a sentence', 'I think we need to REPLAN because the API changed', 'replan'],
    ['in markdown', 'Result: **STEP_DONE**', 'step_done'],
    ['in backticks', 'Finished `STEP_DONE`', 'step_done'],
    ['next to CJK text', '测试通过STEP_DONE', 'step_done'],
    ['twice', 'STEP_DONE. Really, STEP_DONE', 'step_done'],
  ] as const)('accepts a legacy token %s, with the warning', (_name, text, control) => {
    const result = classifyControlOutput(text);
    expect(result).toMatchObject({ kind: 'legacy', control });
    expect(result.kind === 'legacy' && result.warning).toMatch(/^legacy control string/);
  });

  it.each(['NOT_STEP_DONE', 'STEP_DONE_LATER', 'MUST_REPLAN_NOW', 'REPLANNED', 'step_done', 'STEPDONE', '步骤完成'])(
    'does not take %j for a token (part of a longer identifier, or a variant)',
    (text) => {
      expect(classifyControlOutput(text)).toEqual({ kind: 'none' });
    },
  );

  it('returns none for contradictory tokens (fail fast, docs/spec/control-envelope.md#reading-model-output)', () => {
    expect(classifyControlOutput('STEP_DONE, or maybe REPLAN')).toEqual({ kind: 'none' });
  });

  it('prunes an envelope to control and reason, as the pydantic model of the original design ignores other keys', () => {
    expect(classifyControlOutput('{"control": "step_done", "trace_id": "t-1"}')).toEqual({ kind: 'structured', envelope: { control: 'step_done' } });
    expect(tryParseControlEnvelope('{"reason": "r", "control": "replan", "extra": {"control": "step_done"}}')).toEqual({ control: 'replan', reason: 'r' });
    expect(tryParseControlEnvelope('{"control":"step_done","__proto__":{"polluted":1}}')).toEqual({ control: 'step_done' });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('still requires one object, a known control and a string reason', () => {
    for (const text of ['[{"control":"step_done"}]', 'Done {"control":"step_done"}', '{"control":"finish","tool":"x"}', '{"control":"replan","reason":42}', '{"tool":"read_file"}']) {
      expect(tryParseControlEnvelope(text)).toBeNull();
    }
  });

  it('ignores output above the size bound, and reads output just below it', () => {
    const filler = 'x '.repeat(MAX_CONTROL_OUTPUT_CHARS / 2);
    expect(classifyControlOutput(`${filler}STEP_DONE`)).toEqual({ kind: 'none' });
    expect(classifyControlOutput(`${filler.slice(20)}STEP_DONE`)).toMatchObject({ kind: 'legacy', control: 'step_done' });
  });

  it('reads a worst-case input (a megabyte of near-tokens) in one pass', () => {
    const text = 'STEP_DON'.repeat(MAX_CONTROL_OUTPUT_CHARS / 8);
    expect(classifyControlOutput(text)).toEqual({ kind: 'none' });
    const words = 'ASTEP_DONE '.repeat(Math.floor(MAX_CONTROL_OUTPUT_CHARS / 11));
    expect(classifyControlOutput(words, { mode: 'strict' })).toEqual({ kind: 'none' });
    expect(classifyControlOutput(words)).toEqual({ kind: 'none' });
  });
});

describe('docs/spec/control-envelope.md#acceptance-cases (default mode)', () => {
  it('AC1: {"control": "step_done"} is recognised as step done', () => {
    expect(tryParseControlEnvelope('{"control": "step_done"}')).toEqual({ control: 'step_done' });
    expect(classifyControlOutput('{"control": "step_done"}')).toEqual({ kind: 'structured', envelope: { control: 'step_done' } });
  });

  it('AC2: {"control": "replan"} triggers replanning', () => {
    expect(classifyControlOutput('{"control": "replan"}')).toEqual({ kind: 'structured', envelope: { control: 'replan' } });
  });

  it('AC3: the legacy STEP_DONE string still works but carries a warning', () => {
    const result = classifyControlOutput('STEP_DONE');
    expect(result).toMatchObject({ kind: 'legacy', control: 'step_done' });
    expect(result.kind === 'legacy' && result.warning).toContain('{"control":"step_done"}');
  });

  it('AC4: unrelated JSON such as {"tool": "read_file"} is not a control signal', () => {
    expect(tryParseControlEnvelope('{"tool": "read_file"}')).toBeNull();
    expect(classifyControlOutput('{"tool": "read_file"}')).toEqual({ kind: 'none' });
  });
});

describe('the examples of docs/spec/control-envelope.md#envelope', () => {
  it('parse as envelopes, reason included', () => {
    expect(tryParseControlEnvelope(SEED_ENVELOPE_STEP_DONE)).toEqual({ control: 'step_done' });
    expect(tryParseControlEnvelope(SEED_ENVELOPE_REPLAN)).toEqual({ control: 'replan', reason: '步骤 3 执行失败，需要调整策略' });
  });
});

describe('strict mode, docs/spec/control-envelope.md#why-an-envelope false positives: mentions are not signals', () => {
  it.each([
    'I will say STEP_DONE later, once the tests pass.',
    'The legacy protocol used STEP_DONE and REPLAN.',
    '- STEP_DONE is deprecated',
    '`STEP_DONE`',
    '**REPLAN**',
    'STEP_DONE.',
    'Status: STEP_DONE',
  ])('%j', (text) => {
    expect(detectLegacyControl(text, 'strict')).toBeNull();
    expect(classifyControlOutput(text, { mode: 'strict' })).toEqual({ kind: 'none' });
  });

  it('a tool call JSON carrying a control key is not an envelope', () => {
    expect(tryParseControlEnvelope('{"tool": "bash", "control": "step_done"}', 'strict')).toBeNull();
    expect(tryParseControlEnvelope('{"control": "step_done", "args": {"cmd": "ls"}}', 'strict')).toBeNull();
  });
});

describe('docs/spec/control-envelope.md#why-an-envelope false negatives: variants are not signals (the envelope fixes them)', () => {
  it.each(['step_done', 'STEPDONE', 'Step_Done', '步骤完成', 'STEP DONE', 'replan', 'RE_PLAN'])('%j', (text) => {
    expect(detectLegacyControl(text)).toBeNull();
    expect(classifyControlOutput(text)).toEqual({ kind: 'none' });
  });
});

describe.each(['seed', 'strict'] as const)('detectLegacyControl, %s mode', (mode) => {
  it('accepts a token on a line of its own, anywhere, with surrounding whitespace', () => {
    expect(detectLegacyControl('Tests pass.\n\n  STEP_DONE  \n', mode)).toBe('step_done');
    expect(detectLegacyControl('Step 3 failed.\r\nREPLAN', mode)).toBe('replan');
    expect(detectLegacyControl('\tREPLAN\r', mode)).toBe('replan');
  });

  it('tolerates the same token twice but returns null for contradictory tokens', () => {
    expect(detectLegacyControl('STEP_DONE\nSTEP_DONE', mode)).toBe('step_done');
    expect(detectLegacyControl('STEP_DONE\nREPLAN', mode)).toBeNull();
  });

  it('in strict mode only, a token inside a line does not count', () => {
    expect(detectLegacyControl('x STEP_DONE\nREPLAN is next', mode)).toBeNull();
    expect(detectLegacyControl('Checked it all, STEP_DONE', mode)).toBe(mode === 'seed' ? 'step_done' : null);
  });

  it('never throws and ignores non-strings and object-prototype names', () => {
    for (const input of [undefined, null, 42, {}, ['STEP_DONE'], 'constructor', '__proto__', 'toString']) {
      expect(detectLegacyControl(input)).toBeNull();
    }
  });
});

describe('tryParseControlEnvelope', () => {
  it('trims surrounding whitespace', () => {
    expect(tryParseControlEnvelope('\n  {"control":"replan","reason":"r"}\t\n')).toEqual({ control: 'replan', reason: 'r' });
  });

  it('accepts reason: null as absent, as the original design model does', () => {
    expect(tryParseControlEnvelope('{"control":"replan","reason":null}')).toEqual({ control: 'replan', reason: null });
  });

  it.each([
    ['an array', '[{"control":"step_done"}]'],
    ['an envelope inside another object', '{"envelope":{"control":"step_done"}}'],
    ['two envelopes', '{"control":"step_done"}{"control":"replan"}'],
    ['prose around the object', 'Done! {"control":"step_done"}'],
    ['a code fence', '```json\n{"control":"step_done"}\n```'],
    ['an unknown control', '{"control":"finish"}'],
    ['an uppercase control', '{"control":"STEP_DONE"}'],
    ['a non-string reason', '{"control":"replan","reason":42}'],
    ['broken JSON', '{"control": step_done}'],
    ['trailing comma', '{"control":"step_done",}'],
    ['braces only', '{}'],
    ['a lone brace', '{'],
    ['empty text', ''],
    ['whitespace', '   \n '],
  ])('rejects %s', (_name, text) => {
    expect(tryParseControlEnvelope(text)).toBeNull();
    expect(tryParseControlEnvelope(text, 'strict')).toBeNull();
  });

  it.each([
    ['an unknown key', '{"control":"step_done","extra":1}'],
    ['a __proto__ key', '{"control":"step_done","__proto__":{"x":1}}'],
  ])('rejects %s in strict mode only', (_name, text) => {
    expect(tryParseControlEnvelope(text, 'strict')).toBeNull();
    expect(tryParseControlEnvelope(text)).toEqual({ control: 'step_done' });
  });

  it('never throws on non-string input', () => {
    for (const input of [undefined, null, 0, true, { control: 'step_done' }, ['{}'], Symbol('x'), () => '{}']) {
      expect(tryParseControlEnvelope(input)).toBeNull();
      expect(classifyControlOutput(input)).toEqual({ kind: 'none' });
    }
  });

  it('does not parse huge text (fast prune before JSON.parse)', () => {
    const huge = `{"control":"replan","reason":"${'x'.repeat(MAX_ENVELOPE_CHARS)}"}`;
    expect(tryParseControlEnvelope(huge)).toBeNull();
    const parse = vi.spyOn(JSON, 'parse');
    try {
      tryParseControlEnvelope(huge);
      tryParseControlEnvelope('STEP_DONE');
      tryParseControlEnvelope('[1,2]');
      tryParseControlEnvelope('x{"control":"replan"}');
      expect(parse).not.toHaveBeenCalled();
      tryParseControlEnvelope('{"control":"replan"}');
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('rejects a reason beyond the text limit even when the envelope is small enough to parse', () => {
    const long = JSON.stringify({ control: 'replan', reason: 'x'.repeat(16 * 1024 + 1) });
    expect(long.length).toBeLessThan(MAX_ENVELOPE_CHARS);
    expect(tryParseControlEnvelope(long)).toBeNull();
    expect(ControlEnvelopeSchema.safeParse(JSON.parse(long)).error?.issues[0]).toMatchObject({ code: 'too_big', path: ['reason'] });
  });

  it('survives deeply nested garbage', () => {
    const nested = `{"control":"replan","reason":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    expect(tryParseControlEnvelope(nested)).toBeNull();
  });
});

describe('classifyControlOutput', () => {
  it('a valid envelope wins over a legacy token', () => {
    expect(classifyControlOutput('{"control":"replan","reason":"STEP_DONE"}')).toEqual({
      kind: 'structured',
      envelope: { control: 'replan', reason: 'STEP_DONE' },
    });
  });

  it('falls back to legacy when the text is not an envelope', () => {
    expect(classifyControlOutput('Replanning now.\nREPLAN')).toMatchObject({ kind: 'legacy', control: 'replan' });
  });

  it('huge text with a legacy line is still classified as legacy', () => {
    const text = `${'log line\n'.repeat(100_000)}STEP_DONE`;
    expect(classifyControlOutput(text)).toMatchObject({ kind: 'legacy', control: 'step_done' });
  });
});

describe('control_signal event', () => {
  it('carries format, control, reason and step id', () => {
    const structured = controlSignalEvent(classifyControlOutput(SEED_ENVELOPE_REPLAN), 'step_3');
    expect(structured).toEqual({ step_id: 'step_3', control: 'replan', reason: '步骤 3 执行失败，需要调整策略', format: 'structured' });
    expect(ControlSignalEventSchema.parse(structured)).toEqual(structured);
    const legacy = controlSignalEvent(classifyControlOutput('STEP_DONE'));
    expect(legacy).toEqual({ control: 'step_done', format: 'legacy' });
    expect(ControlSignalEventSchema.parse(legacy)).toEqual(legacy);
    expect(controlSignalEvent(classifyControlOutput('hello'))).toBeNull();
  });

  it('drops a null reason instead of emitting it', () => {
    expect(controlSignalEvent(classifyControlOutput('{"control":"replan","reason":null}'))).toEqual({
      control: 'replan',
      format: 'structured',
    });
  });

  it('schema rejects unknown formats and extra keys', () => {
    expect(ControlSignalEventSchema.safeParse({ control: 'replan', format: 'xml' }).error?.issues[0]).toMatchObject({
      path: ['format'],
      code: 'invalid_value',
    });
    expect(ControlSignalEventSchema.safeParse({ control: 'replan', format: 'legacy', trace: 1 }).error?.issues[0]).toMatchObject({
      code: 'unrecognized_keys',
    });
  });
});
