import type { ServerResponse } from 'node:http';
import { Controller, Get, Inject, Query, Res, UseGuards } from '@nestjs/common';
import { SignalLogQuerySchema, SignalLogStatsQuerySchema, type OperatorIdentity, type SignalLogListResponse, type SignalLogStats } from '@ahp/protocol';
import { toJsonl } from '@ahp/store';
import { parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { SignalsApiService } from './signals-api.service.js';

/**
 * The signal log for operators (viewer and up): a JSON listing for the console, a JSONL download,
 * and statistics, narrowed to a scoped token's teams. Thin: parse the query with the protocol's schema, call {@link SignalsApiService}.
 */
@Controller('v1/operator/signals')
@UseGuards(OperatorAuthGuard)
export class SignalsApiController {
  constructor(@Inject(SignalsApiService) private readonly signals: SignalsApiService) {}

  @Get()
  async list(@CurrentOperator() operator: OperatorIdentity, @Query() query: unknown): Promise<SignalLogListResponse> {
    const { limit, ...filter } = parseInput(SignalLogQuerySchema, { ...(query as object) }, 'query');
    const { lines, truncated } = await this.signals.export(operator, filter, limit);
    return { lines, truncated };
  }

  /** The same lines as JSONL, as a file download; `X-AHP-Truncated` says whether `limit` cut them short. */
  @Get('export')
  async export(@CurrentOperator() operator: OperatorIdentity, @Query() query: unknown, @Res() response: ServerResponse): Promise<void> {
    const { limit, ...filter } = parseInput(SignalLogQuerySchema, { ...(query as object) }, 'query');
    const { lines, truncated } = await this.signals.export(operator, filter, limit);
    response.writeHead(200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': 'attachment; filename="ahp-signal-log.jsonl"',
      'cache-control': 'no-store',
      'x-ahp-truncated': String(truncated),
    });
    response.end(toJsonl(lines));
  }

  @Get('stats')
  stats(@CurrentOperator() operator: OperatorIdentity, @Query() query: unknown): Promise<SignalLogStats> {
    return this.signals.stats(operator, parseInput(SignalLogStatsQuerySchema, { ...(query as object) }, 'query'));
  }
}
