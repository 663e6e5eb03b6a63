import { Inject, Injectable } from '@nestjs/common';
import type { AgentIdentity, ClaudeCodeHookInput, ClaudeCodeHookOutput } from '@ahp/protocol';
import { CodingAgentHooks, type HookHoldOptions } from '../coding-agents/coding-agent-hooks.service.js';
import { agentSessionId } from '../coding-agents/hook-dialect.js';
import { claudeCodeDialect } from './claude-code-dialect.js';
import { ClaudeCodeTeamActivity } from './claude-code-team-activity.js';

/**
 * The gateway session of a Claude Code session (`cc-<sha256 prefix>` of the agent and Claude
 * Code's `session_id`), see {@link agentSessionId}.
 */
export function claudeCodeSessionId(agentId: string, claudeSessionId: string): string {
  return agentSessionId(claudeCodeDialect.sessionPrefix, agentId, claudeSessionId);
}

/**
 * Runs one Claude Code hook through the shared coding agent hook path and answers in Claude
 * Code's format. What Claude Code adds: its agent-team events go on the agent's timeline
 * (ClaudeCodeTeamActivity).
 */
@Injectable()
export class ClaudeCodeService {
  constructor(
    @Inject(CodingAgentHooks) private readonly hooks: CodingAgentHooks,
    @Inject(ClaudeCodeTeamActivity) private readonly team: ClaudeCodeTeamActivity,
  ) {}

  /** The answer to `input` from `agent` (see CodingAgentHooks.run). */
  async handle(agent: AgentIdentity, input: ClaudeCodeHookInput, hold: HookHoldOptions = {}): Promise<ClaudeCodeHookOutput> {
    const output = await this.hooks.run(
      claudeCodeDialect,
      agent,
      input,
      { after: (sessionId, decision) => this.team.record(agent, sessionId, input, decision) },
      hold,
    );
    return output as ClaudeCodeHookOutput;
  }
}
