import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import {
  connectRedis,
  createDecisionFeed,
  createHookQueue,
  createKeys,
  createRedisStores,
  type DecisionFeed,
  type HookQueue,
  type RedisClient,
  type RedisStores,
  type StoreKeys,
} from '@ahp/store';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { DECISION_FEED, HOOK_QUEUE, HOOK_STORE, PRESENCE_STORE, REDIS, SESSION_STORE, SIGNAL_STORE, STORE_KEYS } from './store.tokens.js';

/** Everything built over the gateway's Redis connection, made once at start. */
interface StoreBundle {
  redis: RedisClient;
  keys: StoreKeys;
  stores: RedisStores;
  queue: HookQueue;
  feed: DecisionFeed;
}

const STORE_BUNDLE = Symbol('STORE_BUNDLE');

async function createStoreBundle(config: GatewayConfig, logger: JsonLogger): Promise<StoreBundle> {
  const storeLogger = logger.child({ component: 'store' });
  const keys = createKeys({ prefix: config.keyPrefix });
  // The connection name shows up in CLIENT LIST; it must fit Redis' 128-character id rules.
  const redis = await connectRedis({ url: config.redisUrl, name: `gateway:${config.gatewayId}`.slice(0, 128), logger: storeLogger });
  return {
    redis,
    keys,
    stores: createRedisStores({ redis, keys }),
    queue: createHookQueue({ redis, keys }),
    feed: createDecisionFeed({ redis, keys, gatewayId: config.gatewayId, logger: storeLogger }),
  };
}

/**
 * Closes what the store module opened, in dependency order: the feed (it reads on its own
 * connection), the queue, then the shared Redis client. Idempotent, so the shutdown sequence can
 * call it explicitly and Nest's shutdown hook again without harm.
 */
@Injectable()
export class StoreLifecycle implements OnApplicationShutdown {
  private closing: Promise<void> | undefined;

  constructor(
    @Inject(STORE_BUNDLE) private readonly bundle: StoreBundle,
    @Inject(LOGGER) private readonly logger: JsonLogger,
  ) {}

  close(): Promise<void> {
    this.closing ??= (async () => {
      const steps: [string, () => Promise<void>][] = [
        ['decision feed', () => this.bundle.feed.stop()],
        ['hook queue', () => this.bundle.queue.close()],
        ['redis', () => (this.bundle.redis.isOpen ? this.bundle.redis.close() : Promise.resolve())],
      ];
      for (const [what, step] of steps) {
        try {
          await step();
        } catch (error) {
          this.logger.warn({ component: 'store', error }, `closing the ${what} failed`);
        }
      }
    })();
    return this.closing;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }
}

/**
 * The Redis-backed stores, the hook queue and this gateway's decision feed, as injectable
 * interfaces (see store.tokens.ts). Global: every feature module needs some of them.
 */
@Global()
@Module({
  providers: [
    {
      provide: STORE_BUNDLE,
      inject: [GATEWAY_CONFIG, LOGGER],
      useFactory: createStoreBundle,
    },
    { provide: REDIS, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.redis },
    { provide: STORE_KEYS, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.keys },
    { provide: HOOK_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.stores.hooks },
    { provide: SIGNAL_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.stores.signals },
    { provide: PRESENCE_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.stores.presence },
    { provide: SESSION_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.stores.sessions },
    { provide: HOOK_QUEUE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.queue },
    { provide: DECISION_FEED, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.feed },
    StoreLifecycle,
  ],
  exports: [REDIS, STORE_KEYS, HOOK_STORE, SIGNAL_STORE, PRESENCE_STORE, SESSION_STORE, HOOK_QUEUE, DECISION_FEED, StoreLifecycle],
})
export class StoreModule {}
