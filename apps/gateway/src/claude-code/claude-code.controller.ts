import type { IncomingMessage, ServerResponse } from 'node:http';
import { Body, Controller, HttpCode, Inject, Post, Req, Res, UseFilters } from '@nestjs/common';
import { makeError, type ClaudeCodeHookOutput } from '@ahp/protocol';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import { holdOptionsOf } from '../coding-agents/permission-hold.js';
import { OperatorApiError } from '../operator-api/api-error.js';
import { claudeCodeDialect } from './claude-code-dialect.js';
import { gatedEventOf, refusedOutput } from './claude-code-mapping.js';
import { CodingAgentErrorFilter } from '../coding-agents/coding-agent-error.filter.js';
import { ClaudeCodeService } from './claude-code.service.js';

/** Where Claude Code's `http` hooks post (docs/claude-code.md). */
export const CLAUDE_CODE_HOOK_PATH = 'v1/hooks/claude-code';

/**
 * `POST /v1/hooks/claude-code`: one Claude Code hook input in, Claude Code's hook output out.
 * Authenticated with an agent token (the agent acts as itself, as over the WebSocket). The body
 * reaches here through `HookIntake` (coding-agents/hook-intake.ts) — token, encoding, rate limit, size and shape
 * already checked, JSON parsed; the token is checked again here so the route never depends on
 * the middleware being installed.
 */
@Controller(CLAUDE_CODE_HOOK_PATH)
@UseFilters(CodingAgentErrorFilter)
export class ClaudeCodeController {
  constructor(
    @Inject(AgentAuthService) private readonly auth: AgentAuthService,
    @Inject(ClaudeCodeService) private readonly claudeCode: ClaudeCodeService,
  ) {}

  @Post()
  @HttpCode(200)
  hook(@Req() request: IncomingMessage, @Res({ passthrough: true }) response: ServerResponse, @Body() body: unknown): Promise<ClaudeCodeHookOutput> {
    const auth = this.auth.authenticateRequest(request);
    if (!auth.ok) throw new OperatorApiError(makeError('E_UNAUTHORIZED', 'a valid agent token is required (Authorization: Bearer <token>)'));
    let input;
    try {
      input = claudeCodeDialect.parse(body);
    } catch (error) {
      // Claude Code takes an HTTP error for "no objection": a malformed PreToolUse or
      // PermissionRequest would let the tool run, a malformed TeammateIdle or TaskCompleted would
      // let the teammate stop or the task close, past every rule. Those are answered with the
      // event's block instead (fail closed), naming the field; other events keep the 400.
      const event = gatedEventOf(body);
      if (error instanceof OperatorApiError && event !== undefined) return Promise.resolve(refusedOutput(event, error.error));
      throw error;
    }
    return this.claudeCode.handle(auth.agent.identity, input, holdOptionsOf(request, response));
  }
}
