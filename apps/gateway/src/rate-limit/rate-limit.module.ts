import { Global, Module } from '@nestjs/common';
import { RateLimitsService } from './rate-limits.service.js';

/**
 * Rate limits shared by every gateway (Redis buckets): the agent endpoint's frame router, the
 * Claude Code hook route's intake and the operator API's auth guard ask it; every path that
 * starts a session opens it through SessionOpener (sessions/), which counts it. Global, because
 * the guard is provided by several feature modules.
 */
@Global()
@Module({
  providers: [RateLimitsService],
  exports: [RateLimitsService],
})
export class RateLimitModule {}
