import { Global, Module } from '@nestjs/common';
import { ConnectionRegistry } from './connection-registry.js';

/**
 * The registry of open agent connections, on its own so that presence, hooks and shutdown can
 * read it without importing the gateway module (which imports them).
 */
@Global()
@Module({
  providers: [ConnectionRegistry],
  exports: [ConnectionRegistry],
})
export class ConnectionsModule {}
