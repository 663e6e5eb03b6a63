import type { TimelineEntry } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { teamActivityView } from './team-activity';

type TeamActivity = Extract<TimelineEntry['event'], { kind: 'team_activity' }>;

function entry(event: Omit<TeamActivity, 'kind'>, attribution?: TimelineEntry['attribution']): [TimelineEntry, TeamActivity] {
  const teamEvent: TeamActivity = { kind: 'team_activity', ...event };
  return [{ id: '1-0', agent_id: 'mallory', recorded_at: '2026-11-26T20:00:00.000Z', event: teamEvent, ...(attribution === undefined ? {} : { attribution }) }, teamEvent];
}

const sender = { id: 'mallory', name: 'Mallory', team: 'web' };

describe('teamActivityView', () => {
  it('shows a forged teammate as what the sender reported, never as who acted (the audit’s "alice (lead)")', () => {
    const view = teamActivityView(...entry({ activity: 'task_completed', teammate_name: 'alice (lead)', team_name: 'web', task: { id: 'deploy-prod', subject: 'Approved by op-maria' } }, { sender, names: 'claimed' }));
    expect(view).toEqual({ label: 'task completed', claim: { reportedBy: 'Mallory', teammate: 'alice (lead)', team: 'web' } });
    expect(view.by).toBeUndefined();
  });

  it('shows a verified teammate as the agent the gateway knows', () => {
    expect(teamActivityView(...entry({ activity: 'teammate_idle', teammate_name: 'alice' }, { sender, names: 'verified', teammate: { id: 'alice', name: 'Alice' } }))).toEqual({
      label: 'teammate going idle',
      by: { id: 'alice', name: 'Alice' },
    });
    expect(teamActivityView(...entry({ activity: 'task_created', task: { id: 't' } }, { sender, names: 'verified' }))).toEqual({ label: 'task created' });
  });

  it('reads an entry without attribution (an older gateway) as a claim of its agent', () => {
    expect(teamActivityView(...entry({ activity: 'task_completed', teammate_name: 'alice' }))).toEqual({ label: 'task completed', claim: { reportedBy: 'mallory', teammate: 'alice' } });
    expect(teamActivityView(...entry({ activity: 'task_created' }))).toEqual({ label: 'task created' });
  });
});
