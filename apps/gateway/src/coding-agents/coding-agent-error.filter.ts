import type { ServerResponse } from 'node:http';
import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { OperatorApiError } from '../operator-api/api-error.js';

/**
 * Typed errors of the coding agents' hook endpoints (Claude Code, Codex, Copilot) as
 * `{ "error": AhpError }` with their status, like the operator API. Only auth and input errors get here: once a hook runs, every outcome (timeouts
 * included) is a 200 with a Claude Code answer. Other exceptions stay with the global filters.
 */
@Catch(OperatorApiError)
export class CodingAgentErrorFilter implements ExceptionFilter<OperatorApiError> {
  catch(exception: OperatorApiError, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<ServerResponse>();
    if (response.headersSent) return;
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
    if (exception.status === 401) headers['www-authenticate'] = 'Bearer realm="ahp-agents"';
    response.writeHead(exception.status, headers);
    response.end(JSON.stringify({ error: exception.error }));
  }
}
