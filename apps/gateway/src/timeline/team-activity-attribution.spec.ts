import type { AgentIdentity, TeamActivityEvent } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { attributeTeamActivity, type TeamRoster } from './team-activity-attribution.js';

const AGENTS: AgentIdentity[] = [
  { id: 'mallory', name: 'Mallory', team: 'web' },
  { id: 'alice', name: 'Alice', team: 'web', role: 'lead' },
  { id: 'al-1', name: 'Al', team: 'web' },
  { id: 'al-2', name: 'Al', team: 'web' },
  { id: 'bob', name: 'Bob', team: 'ops' },
];
const roster: TeamRoster = { membersOf: (team) => AGENTS.filter((agent) => agent.team === team) };
const mallory = AGENTS[0]!;
const done = (names: Partial<TeamActivityEvent>): TeamActivityEvent => ({ kind: 'team_activity', activity: 'task_completed', task: { id: 't' }, ...names });

describe('attributeTeamActivity', () => {
  it('keeps a name the sender cannot vouch for as its claim (the audit: "alice (lead)")', () => {
    expect(attributeTeamActivity(mallory, done({ teammate_name: 'alice (lead)', team_name: 'web' }), roster)).toEqual({
      sender: { id: 'mallory', name: 'Mallory', team: 'web' },
      names: 'claimed',
    });
  });

  it('verifies a member of the sender’s team by id or by a name only one member bears', () => {
    expect(attributeTeamActivity(mallory, done({ teammate_name: 'alice' }), roster)).toMatchObject({ names: 'verified', teammate: { id: 'alice', name: 'Alice' } });
    expect(attributeTeamActivity(mallory, done({ teammate_name: 'Alice', team_name: 'web' }), roster)).toMatchObject({ names: 'verified', teammate: { id: 'alice' } });
    expect(attributeTeamActivity(mallory, done({ teammate_name: 'Al' }), roster)).toMatchObject({ names: 'claimed' });
  });

  it('claims another team’s agent or name, and anyone but itself for a sender without a team', () => {
    expect(attributeTeamActivity(mallory, done({ teammate_name: 'bob' }), roster).names).toBe('claimed');
    expect(attributeTeamActivity(mallory, done({ teammate_name: 'alice', team_name: 'ops' }), roster)).toEqual({ sender: { id: 'mallory', name: 'Mallory', team: 'web' }, names: 'claimed' });
    const loner: AgentIdentity = { id: 'loner', name: 'Loner' };
    expect(attributeTeamActivity(loner, done({ teammate_name: 'alice' }), roster)).toEqual({ sender: { id: 'loner', name: 'Loner' }, names: 'claimed' });
    expect(attributeTeamActivity(loner, done({ teammate_name: 'Loner' }), roster)).toMatchObject({ names: 'verified', teammate: { id: 'loner' } });
    expect(attributeTeamActivity(loner, done({ team_name: 'web' }), roster).names).toBe('claimed');
    expect(attributeTeamActivity(loner, done({}), roster).names).toBe('verified');
  });
});
