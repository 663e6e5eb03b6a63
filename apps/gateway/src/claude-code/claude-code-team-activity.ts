/**
 * Claude Code's agent-team events on the agent's timeline: each TeammateIdle, TaskCreated and
 * TaskCompleted becomes a `team_activity` event, so operators see what the team did (and when
 * AHP's answer kept a teammate working) next to the agent's signals and requests.
 */
import { Inject, Injectable } from '@nestjs/common';
import { awaitingApproval, type AgentIdentity, type ClaudeCodeHookInput, type HookDecision, type TeamActivityEvent } from '@ahp/protocol';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { TimelineService } from '../timeline/timeline.service.js';
import { approvalWaitReason, blockReason } from './claude-code-mapping.js';

const ACTIVITIES = Object.freeze({ TeammateIdle: 'teammate_idle', TaskCreated: 'task_created', TaskCompleted: 'task_completed' } as const);

/** Longest task subject and hold reason kept on the timeline (the event's text limit). */
const MAX_TEXT = 16 * 1024;

/**
 * The timeline event of `input` answered with `decision`, or undefined when `input` is not an
 * agent-team event. `held` is the reason Claude Code received when the answer refused the idle,
 * the creation or the completion.
 */
export function teamActivityEvent(input: ClaudeCodeHookInput, decision: HookDecision): TeamActivityEvent | undefined {
  if (input.hook_event_name !== 'TeammateIdle' && input.hook_event_name !== 'TaskCreated' && input.hook_event_name !== 'TaskCompleted') return undefined;
  const event: TeamActivityEvent = { kind: 'team_activity', activity: ACTIVITIES[input.hook_event_name] };
  if (input.team_name !== undefined) event.team_name = input.team_name;
  if (input.teammate_name !== undefined) event.teammate_name = input.teammate_name;
  if (input.hook_event_name !== 'TeammateIdle') event.task = { id: input.task_id, subject: input.task_subject.slice(0, MAX_TEXT) };
  if (!decision.allowed) {
    const waiting = awaitingApproval(decision);
    event.held = (waiting === undefined ? blockReason(decision) : approvalWaitReason(waiting)).slice(0, MAX_TEXT);
  }
  return event;
}

/**
 * Appends the team events to the agent's timeline, attributed to the agent of the token
 * (TimelineService). Best effort: the timeline is a view, the hook's answer never waits on it failing.
 */
@Injectable()
export class ClaudeCodeTeamActivity {
  private readonly log: JsonLogger;

  constructor(
    @Inject(TimelineService) private readonly timeline: TimelineService,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'claude-code-team-activity' });
  }

  /** Records `input`'s team event, if it is one, for `agent` in AHP session `sessionId`. Never throws. */
  async record(agent: AgentIdentity, sessionId: string, input: ClaudeCodeHookInput, decision: HookDecision, now: number = Date.now()): Promise<void> {
    const event = teamActivityEvent(input, decision);
    if (event === undefined) return;
    try {
      await this.timeline.append(agent, sessionId, event, now);
    } catch (error) {
      this.log.warn({ agentId: agent.id, sessionId, activity: event.activity, error }, 'recording the team activity on the timeline failed');
    }
  }
}
