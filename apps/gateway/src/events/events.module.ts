import { Global, Inject, Module } from '@nestjs/common';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { GatewayEvents } from './gateway-events.js';

/** The in-process event hub, global so that any feature can emit or listen without module wiring. */
@Global()
@Module({
  providers: [GatewayEvents],
  exports: [GatewayEvents],
})
export class EventsModule {
  constructor(@Inject(GatewayEvents) events: GatewayEvents, @Inject(LOGGER) logger: JsonLogger) {
    const log = logger.child({ component: 'events' });
    events.reportListenerErrorsTo((error, event) => log.error({ event, error }, 'a gateway event listener failed'));
  }
}
