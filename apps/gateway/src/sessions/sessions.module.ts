import { Global, Module } from '@nestjs/common';
import { SessionOpener } from './session-opener.js';

/**
 * The one way to open an agent's session ({@link SessionOpener}), for every door that starts one
 * (agent endpoint, hook frames, coding-agent routes, MCP gateway). Global, as the rate limits it
 * charges are; it depends on RateLimitModule, never the other way round.
 */
@Global()
@Module({
  providers: [SessionOpener],
  exports: [SessionOpener],
})
export class SessionsModule {}
