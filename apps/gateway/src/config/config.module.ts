import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { JsonLogger } from '../logging/json-logger.js';
import type { GatewayConfig } from './gateway-config.js';
import { GATEWAY_CONFIG, LOGGER } from './config.tokens.js';

/**
 * Provides the parsed configuration and the root logger to every module. Both are made before
 * Nest starts (configuration errors must stop the process before anything listens), so this
 * module only hands them out.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: GatewayConfig, logger: JsonLogger): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: LOGGER, useValue: logger },
      ],
      exports: [GATEWAY_CONFIG, LOGGER],
    };
  }
}
