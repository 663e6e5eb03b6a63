import type { AgentEvent } from '@ahp/protocol/wire';
import { describe, expect, it, vi } from 'vitest';
import { readControlSignal } from './control.js';
import type { Logger } from './logger.js';

function setup(failReport = false) {
  const events: AgentEvent[] = [];
  const sink = {
    report: vi.fn(async (event: AgentEvent) => {
      if (failReport) throw new Error('gateway gone');
      events.push(event);
    }),
  };
  const logger: Logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  return { events, sink, logger };
}

describe('readControlSignal — docs/spec/control-envelope.md#acceptance-cases', () => {
  it('recognises {"control": "step_done"} as step completion', async () => {
    const { events, sink, logger } = setup();
    const result = await readControlSignal('{"control": "step_done"}', { stepId: 's1', sink, logger });
    expect(result).toEqual({ kind: 'structured', envelope: { control: 'step_done' } });
    expect(events).toEqual([{ kind: 'control_signal', control_signal: { control: 'step_done', format: 'structured', step_id: 's1' } }]);
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('recognises {"control": "replan"} and reports its reason', async () => {
    const { events, sink } = setup();
    const result = await readControlSignal('  {"control": "replan", "reason": "API changed"}\n', { stepId: 's2', sink });
    expect(result).toMatchObject({ kind: 'structured', envelope: { control: 'replan', reason: 'API changed' } });
    expect(events[0]).toEqual({
      kind: 'control_signal',
      control_signal: { control: 'replan', reason: 'API changed', format: 'structured', step_id: 's2' },
    });
  });

  it('still accepts the STEP_DONE string, with a warning, reported as legacy', async () => {
    const { events, sink, logger } = setup();
    const result = await readControlSignal('All tests pass.\nSTEP_DONE', { stepId: 's3', sink, logger });
    expect(result).toMatchObject({ kind: 'legacy', control: 'step_done' });
    expect(logger.warn).toHaveBeenCalledOnce();
    expect(vi.mocked(logger.warn).mock.calls[0]?.[1]).toMatch(/legacy control string STEP_DONE/);
    expect(events).toEqual([{ kind: 'control_signal', control_signal: { control: 'step_done', format: 'legacy', step_id: 's3' } }]);
  });

  it('does not take unrelated JSON such as {"tool": "read_file"} for a control signal', async () => {
    const { sink } = setup();
    expect(await readControlSignal('{"tool": "read_file"}', { sink })).toEqual({ kind: 'none' });
    expect(await readControlSignal('{"tool": "read_file"}', { sink, mode: 'strict' })).toEqual({ kind: 'none' });
    expect(await readControlSignal('{"tool": "read_file", "control": "step_done"}', { sink, mode: 'strict' })).toEqual({ kind: 'none' });
    expect(sink.report).not.toHaveBeenCalled();
  });

  it('accepts STEP_DONE at the end of a sentence by default, with the warning and the event', async () => {
    const { events, sink, logger } = setup();
    const result = await readControlSignal('Refactored the parser and all tests pass, STEP_DONE.', { stepId: 's4', sink, logger });
    expect(result).toMatchObject({ kind: 'legacy', control: 'step_done' });
    expect(vi.mocked(logger.warn).mock.calls[0]?.[1]).toMatch(/legacy control string STEP_DONE/);
    expect(events).toEqual([{ kind: 'control_signal', control_signal: { control: 'step_done', format: 'legacy', step_id: 's4' } }]);
  });

  it('prunes an envelope with extra keys by default; strict mode refuses it', async () => {
    const { events, sink } = setup();
    expect(await readControlSignal('{"control":"replan","reason":"schema moved","confidence":0.9}', { sink })).toEqual({
      kind: 'structured',
      envelope: { control: 'replan', reason: 'schema moved' },
    });
    expect(await readControlSignal('{"control":"replan","reason":"schema moved","confidence":0.9}', { sink, mode: 'strict' })).toEqual({ kind: 'none' });
    expect(events).toHaveLength(1);
  });
});

describe.each(['seed', 'strict'] as const)('readControlSignal — docs/spec/control-envelope.md#acceptance-cases, %s mode', (mode) => {
  it('reports each of the four cases the same way', async () => {
    const { events, sink, logger } = setup();
    expect(await readControlSignal('{"control": "step_done"}', { sink, logger, mode, stepId: 'a' })).toMatchObject({ kind: 'structured' });
    expect(await readControlSignal('{"control": "replan"}', { sink, logger, mode, stepId: 'b' })).toMatchObject({ kind: 'structured' });
    expect(await readControlSignal('Done.\nSTEP_DONE', { sink, logger, mode, stepId: 'c' })).toMatchObject({ kind: 'legacy', control: 'step_done' });
    expect(await readControlSignal('{"tool": "read_file"}', { sink, logger, mode, stepId: 'd' })).toEqual({ kind: 'none' });
    expect(events.map((event) => event.kind === 'control_signal' && [event.control_signal.step_id, event.control_signal.control, event.control_signal.format])).toEqual([
      ['a', 'step_done', 'structured'],
      ['b', 'replan', 'structured'],
      ['c', 'step_done', 'legacy'],
    ]);
    expect(logger.warn).toHaveBeenCalledOnce();
  });
});

describe('readControlSignal — docs/spec/control-envelope.md#why-an-envelope', () => {
  it.each(['I will say STEP_DONE once the tests pass.', 'Next I might need to REPLAN the approach.'])(
    'strict mode, false positive: a mention is not a signal (%s)',
    async (text) => {
      const { sink, logger } = setup();
      expect(await readControlSignal(text, { sink, logger, mode: 'strict' })).toEqual({ kind: 'none' });
      expect(sink.report).not.toHaveBeenCalled();
      expect(logger.warn).not.toHaveBeenCalled();
    },
  );

  it.each(['step_done', 'STEPDONE', '步骤完成'])('false negative: the variant %s is no signal, the envelope is the fix', async (text) => {
    const { sink } = setup();
    expect(await readControlSignal(text, { sink })).toEqual({ kind: 'none' });
    expect((await readControlSignal('{"control":"step_done"}', { sink })).kind).toBe('structured');
  });
});

describe('readControlSignal — reporting', () => {
  it('logs and swallows a failed report', async () => {
    const { sink, logger } = setup(true);
    expect((await readControlSignal('{"control":"step_done"}', { sink, logger })).kind).toBe('structured');
    expect(logger.warn).toHaveBeenCalledWith(expect.objectContaining({ kind: 'control_signal', error: 'gateway gone' }), 'could not report an agent event');
  });
});
