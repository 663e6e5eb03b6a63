/**
 * How the timeline reads a `team_activity` entry. Its `teammate_name` and `team_name` are the
 * agent's words (a prompt-injected agent can name anyone); the gateway records beside them who sent
 * the event and whether those names are the sender's own (`attribution`, docs/protocol.md). A
 * verified teammate is shown as the agent the tokens file knows; anything else is shown as what the
 * sender reported, never as who acted. An entry without attribution (recorded by an older gateway)
 * is a claim too. Pure, so every case is tested without a browser.
 */
import type { TimelineEntry } from '@ahp/protocol';

type TeamActivity = Extract<TimelineEntry['event'], { kind: 'team_activity' }>;

export const TEAM_ACTIVITY_LABEL: Record<TeamActivity['activity'], string> = {
  teammate_idle: 'teammate going idle',
  task_created: 'task created',
  task_completed: 'task completed',
};

export interface TeamActivityView {
  /** "task completed" */
  label: string;
  /** The teammate the gateway verified: an agent of the sender's team (its id and name in the tokens file). */
  by?: { id: string; name: string };
  /** Set when the event names someone or a team the gateway could not vouch for: who reported it, and what it claims. */
  claim?: { reportedBy: string; teammate?: string; team?: string };
}

export function teamActivityView(entry: TimelineEntry, event: TeamActivity): TeamActivityView {
  const label = TEAM_ACTIVITY_LABEL[event.activity];
  const attribution = entry.attribution;
  if (attribution?.names === 'verified') return attribution.teammate === undefined ? { label } : { label, by: attribution.teammate };
  if (event.teammate_name === undefined && event.team_name === undefined) return { label };
  return {
    label,
    claim: {
      reportedBy: attribution?.sender.name ?? entry.agent_id,
      ...(event.teammate_name === undefined ? {} : { teammate: event.teammate_name }),
      ...(event.team_name === undefined ? {} : { team: event.team_name }),
    },
  };
}
