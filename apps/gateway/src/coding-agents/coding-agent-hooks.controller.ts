import type { IncomingMessage, ServerResponse } from 'node:http';
import { Body, Controller, HttpCode, Inject, Post, Req, Res, UseFilters } from '@nestjs/common';
import { makeError, type AgentIdentity } from '@ahp/protocol';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import { CodingAgentErrorFilter } from './coding-agent-error.filter.js';
import { OperatorApiError } from '../operator-api/api-error.js';
import { CodingAgentHooks } from './coding-agent-hooks.service.js';
import { codexDialect } from './codex-dialect.js';
import { copilotDialect } from './copilot-dialect.js';
import type { HookDialect } from './hook-dialect.js';
import { holdOptionsOf } from './permission-hold.js';

/** The routes of the coding agents other than Claude Code (whose route is claude-code.controller.ts), by dialect. */
export const CODING_AGENT_HOOK_ROUTES: readonly { path: string; dialect: HookDialect<never> }[] = Object.freeze([
  { path: 'v1/hooks/codex', dialect: codexDialect as HookDialect<never> },
  { path: 'v1/hooks/copilot', dialect: copilotDialect as HookDialect<never> },
]);

/**
 * `POST /v1/hooks/codex` and `/v1/hooks/copilot`: one hook input in (as `ahp hook codex|copilot`
 * posts it), the agent's hook output out. Authenticated with an agent token; the body reaches here through `HookIntake`
 * (token, encoding, rate limit, size and shape checked, JSON parsed); the token is checked again
 * so the route never depends on the middleware being installed. Errors are `{ "error": AhpError }`
 * with their status, as for Claude Code.
 */
@Controller('v1/hooks')
@UseFilters(CodingAgentErrorFilter)
export class CodingAgentHooksController {
  constructor(
    @Inject(AgentAuthService) private readonly auth: AgentAuthService,
    @Inject(CodingAgentHooks) private readonly hooks: CodingAgentHooks,
  ) {}

  @Post('codex')
  @HttpCode(200)
  codex(@Req() request: IncomingMessage, @Res({ passthrough: true }) response: ServerResponse, @Body() body: unknown): Promise<unknown> {
    return this.run(codexDialect, this.agent(request), body, request, response);
  }

  @Post('copilot')
  @HttpCode(200)
  copilot(@Req() request: IncomingMessage, @Res({ passthrough: true }) response: ServerResponse, @Body() body: unknown): Promise<unknown> {
    return this.run(copilotDialect, this.agent(request), body, request, response);
  }

  private agent(request: IncomingMessage): AgentIdentity {
    const auth = this.auth.authenticateRequest(request);
    if (!auth.ok) throw new OperatorApiError(makeError('E_UNAUTHORIZED', 'a valid agent token is required (Authorization: Bearer <token>)'));
    return auth.agent.identity;
  }

  private run<Input>(dialect: HookDialect<Input>, agent: AgentIdentity, body: unknown, request: IncomingMessage, response: ServerResponse): Promise<unknown> {
    return this.hooks.run(dialect, agent, dialect.parse(body), {}, holdOptionsOf(request, response));
  }
}
