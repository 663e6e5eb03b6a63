import type { AgentEvent, Plan } from '@ahp/protocol/wire';
import { describe, expect, it } from 'vitest';
import { PlanRunner } from './plan-runner.js';

const step = (id: string, dependencies: string[] = []) => ({ id, description: `do ${id}`, dependencies, status: 'pending' as const, tools_expected: [] });
const plan: Plan = { title: 'fix login', steps: [step('read'), step('edit', ['read']), step('test', ['edit']), step('docs', ['read'])] };

function runner() {
  const events: AgentEvent[] = [];
  const run = new PlanRunner(plan, { sink: { report: async (e) => void events.push(e) }, requestId: 'req_1' });
  return { run, events };
}

const statuses = (p: Plan) => Object.fromEntries(p.steps.map((s) => [s.id, s.status]));

describe('PlanRunner', () => {
  it('yields steps as their dependencies finish and reports each move', async () => {
    const { run, events } = runner();
    expect(run.ready().map((s) => s.id)).toEqual(['read']);
    await run.start('read');
    expect(run.ready()).toEqual([]);
    await run.complete('read');
    expect(run.ready().map((s) => s.id)).toEqual(['edit', 'docs']);
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ kind: 'plan_progress', step_id: 'read', request_id: 'req_1' });
    expect(events[1]?.kind === 'plan_progress' && statuses(events[1].plan)).toMatchObject({ read: 'done', edit: 'pending' });
  });

  it('keeps dependents of a failed step waiting until it is retried or skipped', async () => {
    const { run } = runner();
    await run.complete('read');
    await run.fail('edit');
    expect(run.ready().map((s) => s.id)).toEqual(['docs']);
    await run.retry('edit');
    expect(run.ready().map((s) => s.id)).toEqual(['edit', 'docs']);
    await run.fail('edit');
    await run.skip('edit');
    expect(run.ready().map((s) => s.id)).toEqual(['test', 'docs']);
  });

  it('refuses impossible moves', async () => {
    const { run } = runner();
    await expect(run.start('edit')).rejects.toThrow(/not ready/);
    await run.complete('read');
    await expect(run.fail('read')).rejects.toThrow(/from done to failed/);
    await expect(run.complete('nope')).rejects.toThrow(/no step "nope"/);
    await expect(run.retry('edit')).rejects.toThrow(/only a failed step/);
  });

  it('replans partially: finished steps stay done, left-out finished steps are kept, nothing stays in progress', async () => {
    const { run, events } = runner();
    await run.complete('read');
    await run.complete('docs');
    await run.start('edit');
    await run.replan({ title: 'fix login, v2', steps: [step('docs'), { ...step('patch', ['read']), status: 'in_progress' }, step('verify', ['patch'])] });
    expect(run.plan.title).toBe('fix login, v2');
    expect(statuses(run.plan)).toEqual({ read: 'done', docs: 'done', patch: 'pending', verify: 'pending' });
    expect(run.ready().map((s) => s.id)).toEqual(['patch']);
    expect(events.at(-1)).toMatchObject({ kind: 'plan_progress', plan: { title: 'fix login, v2' } });
    expect(events.at(-1)).not.toHaveProperty('step_id');
  });

  it('rejects an invalid plan or revision and is finished when every step is settled', async () => {
    expect(() => new PlanRunner({ title: 't', steps: [step('a', ['b']), step('b', ['a'])] })).toThrow(/cycle/);
    const run = new PlanRunner({ title: 't', steps: [step('a')] });
    await expect(run.replan({ title: 't', steps: [step('x', ['ghost'])] })).rejects.toThrow(/unknown step/);
    expect(run.finished).toBe(false);
    await run.complete('a');
    expect(run.finished).toBe(true);
  });
});
