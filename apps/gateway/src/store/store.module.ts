import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import {
  connectRedis,
  createConfigStore,
  createFleetStore,
  createHealthStore,
  createLiveTail,
  createGatewayFeed,
  createHookQueue,
  createHookDetailStore,
  resolveHookQueueShardCount,
  createKeys,
  createRedisStores,
  createReplicaAcks,
  createTimelineStore,
  type FleetStore,
  type GatewayFeed,
  type HealthStore,
  type LiveTail,
  type HookQueue,
  type HookDetailStore,
  type RedisClient,
  type RedisConfigStore,
  type RedisStores,
  type StoreKeys,
  type TimelineStore,
} from '@ahp/store';
import { activeTracing } from '@ahp/telemetry';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import { AuthModule } from '../auth/auth.module.js';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';
import {
  CONFIG_STORE,
  FLEET_STORE,
  GATEWAY_FEED,
  HEALTH_STORE,
  HOOK_DETAIL_STORE,
  LIVE_TAIL,
  HOOK_QUEUE,
  HOOK_STORE,
  INBOX_STORE,
  OPERATOR_SIGNAL_STORE,
  PRESENCE_STORE,
  REDIS,
  REQUEST_STORE,
  SESSION_STORE,
  SIGNAL_STORE,
  STORE_KEYS,
  TIMELINE_STORE,
} from './store.tokens.js';

/** Everything built over the gateway's Redis connection, made once at start. */
interface StoreBundle {
  redis: RedisClient;
  keys: StoreKeys;
  stores: RedisStores;
  timeline: TimelineStore;
  config: RedisConfigStore;
  queue: HookQueue;
  feed: GatewayFeed;
  fleet: FleetStore;
  health: HealthStore;
  liveTail: LiveTail;
  hookDetails: HookDetailStore;
}

const STORE_BUNDLE = Symbol('STORE_BUNDLE');

async function createStoreBundle(config: GatewayConfig, logger: JsonLogger, auth: AgentAuthService): Promise<StoreBundle> {
  const storeLogger = logger.child({ component: 'store' });
  const keys = createKeys({ prefix: config.keyPrefix });
  // The connection name shows up in CLIENT LIST; it must fit Redis' 128-character id rules.
  const redis = await connectRedis({
    url: config.redisUrl,
    clusterNodes: config.redisClusterNodes,
    name: `gateway:${config.gatewayId}`.slice(0, 128),
    logger: storeLogger,
  });
  // Every gateway and worker of a deployment agrees on the shard count (stored by the first one).
  const shards = await resolveHookQueueShardCount(redis, keys, config.hookQueueShards);
  return {
    redis,
    keys,
    // Teams come from the tokens file, so a request to or from an offline agent is still indexed
    // under its team (the store's default reads presence, which only knows connected agents).
    stores: createRedisStores({
      redis,
      keys,
      teamOf: (agentId) => auth.identityOf(agentId)?.team,
      replicaAcks: createReplicaAcks(redis, config.redisWait, storeLogger),
      logger: storeLogger,
      inboxMaxMessages: config.inboxMaxMessages,
      inboxMaxBytes: config.inboxMaxBytes,
      maxPendingRequestsPerAgent: config.agentMaxPendingRequests,
    }),
    timeline: createTimelineStore({ redis, keys, logger: storeLogger }),
    // The gateway only reads and publishes versions (no `watch`), so no subscriber is ever opened.
    config: createConfigStore({ redis, keys, logger: storeLogger }),
    // With tracing on, each job carries the W3C trace context of its hook (bullmq-otel); off, nothing.
    queue: createHookQueue({ redis, keys, shards, logger: storeLogger, ...(config.redactionKey === undefined ? {} : { redactionKey: config.redactionKey }), ...(activeTracing().bullmq === undefined ? {} : { telemetry: activeTracing().bullmq }) }),
    hookDetails: createHookDetailStore({ redis, keys }),
    feed: createGatewayFeed({ redis, keys, gatewayId: config.gatewayId, logger: storeLogger }),
    fleet: createFleetStore({ redis, keys }),
    health: createHealthStore({ redis, keys }),
    // Relays to operators' live feeds; it only starts when the live feed does (LiveFeedService).
    liveTail: createLiveTail({ redis, keys, logger: storeLogger }),
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
        ['gateway feed', () => this.bundle.feed.stop()],
        ['live tail', () => this.bundle.liveTail.stop()],
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
 * The Redis-backed stores, the hook queue and this gateway's feed (decisions, inbox notices), as injectable
 * interfaces (see store.tokens.ts). Global: every feature module needs some of them.
 */
@Global()
@Module({
  imports: [AuthModule],
  providers: [
    {
      provide: STORE_BUNDLE,
      inject: [GATEWAY_CONFIG, LOGGER, AgentAuthService],
      useFactory: createStoreBundle,
    },
    { provide: REDIS, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.redis },
    { provide: STORE_KEYS, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.keys },
    { provide: HOOK_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.stores.hooks },
    { provide: SIGNAL_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.stores.signals },
    { provide: PRESENCE_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.stores.presence },
    { provide: SESSION_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.stores.sessions },
    { provide: REQUEST_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.stores.requests },
    { provide: INBOX_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.stores.inboxes },
    { provide: OPERATOR_SIGNAL_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.stores.operatorSignals },
    { provide: FLEET_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.fleet },
    { provide: HEALTH_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.health },
    { provide: LIVE_TAIL, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.liveTail },
    { provide: TIMELINE_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.timeline },
    { provide: CONFIG_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.config },
    { provide: HOOK_QUEUE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.queue },
    { provide: GATEWAY_FEED, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.feed },
    { provide: HOOK_DETAIL_STORE, inject: [STORE_BUNDLE], useFactory: (b: StoreBundle) => b.hookDetails },
    StoreLifecycle,
  ],
  exports: [
    REDIS,
    STORE_KEYS,
    HOOK_STORE,
    SIGNAL_STORE,
    PRESENCE_STORE,
    SESSION_STORE,
    REQUEST_STORE,
    INBOX_STORE,
    OPERATOR_SIGNAL_STORE,
    TIMELINE_STORE,
    CONFIG_STORE,
    HOOK_QUEUE,
    GATEWAY_FEED,
    HOOK_DETAIL_STORE,
    FLEET_STORE,
    HEALTH_STORE,
    LIVE_TAIL,
    StoreLifecycle,
  ],
})
export class StoreModule {}
