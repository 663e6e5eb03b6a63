import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { ConfigReplayIdSchema, ConfigReplayRequestSchema, type ConfigReplayStatus, type OperatorIdentity } from '@ahp/protocol';
import { parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard, RequireFleetWide } from '../operator-api/operator-auth.guard.js';
import { ConfigReplayService } from './config-replay.service.js';

/**
 * `/v1/operator/config/replay`: evaluate a candidate hooks.yaml against recorded hooks (submit,
 * status with progress and report, cancel). Any role, fleet-wide tokens only: the report shows
 * recorded contexts of every team's agents. Thin: parse, call {@link ConfigReplayService}.
 */
@Controller('v1/operator/config/replay')
@UseGuards(OperatorAuthGuard)
@RequireFleetWide()
export class ConfigReplayController {
  constructor(@Inject(ConfigReplayService) private readonly replays: ConfigReplayService) {}

  /** 202 with the replay's id and status (`waiting`); poll `GET …/:id`. */
  @Post()
  @HttpCode(202)
  submit(@CurrentOperator() operator: OperatorIdentity, @Body() body: unknown): Promise<ConfigReplayStatus> {
    return this.replays.submit(operator, parseInput(ConfigReplayRequestSchema, body, 'replay request'), Date.now());
  }

  @Get(':id')
  status(@Param('id') id: string): Promise<ConfigReplayStatus> {
    return this.replays.status(parseInput(ConfigReplayIdSchema, id, 'replay id'));
  }

  /** 200 with the status after asking: `cancelled` at once for a waiting replay, still `active` until a running one reaches its next page. */
  @Delete(':id')
  @HttpCode(200)
  cancel(@CurrentOperator() operator: OperatorIdentity, @Param('id') id: string): Promise<ConfigReplayStatus> {
    return this.replays.cancel(operator, parseInput(ConfigReplayIdSchema, id, 'replay id'));
  }
}
