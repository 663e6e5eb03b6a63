/**
 * Who a `team_activity` event is by. The event's `team_name` and `teammate_name` are the agent's
 * words — an SDK agent writes them in its `event` frame, Claude Code in its hook body — and a
 * prompt-injected agent can write anyone's name there ("task completed by alice (lead)"). The
 * gateway knows who sent it (the token's agent) and the team roster (the tokens file), so it
 * records both beside the event: `verified` when every name given is the sender's own team and
 * the sender or an agent of that team, `claimed` otherwise. The event itself is kept as sent.
 */
import type { AgentIdentity, TeamActivityAttribution, TeamActivityEvent } from '@ahp/protocol';

/** The roster the names are checked against (AgentAuthService: the tokens file). */
export interface TeamRoster {
  /** The known, unrevoked agents of `team`. */
  membersOf(team: string): readonly AgentIdentity[];
}

/** The attribution of `event` sent by `sender` (see the module comment). */
export function attributeTeamActivity(sender: AgentIdentity, event: TeamActivityEvent, roster: TeamRoster): TeamActivityAttribution {
  const senderRef = { id: sender.id, name: sender.name, ...(sender.team === undefined ? {} : { team: sender.team }) };
  const teamOk = event.team_name === undefined || (sender.team !== undefined && event.team_name === sender.team);
  let teammate: AgentIdentity | undefined;
  let teammateOk = true;
  if (event.teammate_name !== undefined) {
    const name = event.teammate_name;
    const candidates = sender.team === undefined ? [sender] : [sender, ...roster.membersOf(sender.team).filter((member) => member.id !== sender.id)];
    // An id names one agent; a display name only counts when exactly one agent of the team bears it.
    const byId = candidates.find((member) => member.id === name);
    const byName = candidates.filter((member) => member.name === name);
    teammate = byId ?? (byName.length === 1 ? byName[0] : undefined);
    teammateOk = teammate !== undefined;
  }
  return {
    sender: senderRef,
    names: teamOk && teammateOk ? 'verified' : 'claimed',
    ...(teammate === undefined || !teamOk ? {} : { teammate: { id: teammate.id, name: teammate.name } }),
  };
}
