import { Body, Controller, Get, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import {
  PushSubscriptionSchema,
  PushUnsubscribeBodySchema,
  type OperatorIdentity,
  type PushSubscriptionsResponse,
  type VapidKeyResponse,
} from '@ahp/protocol';
import { createPushSubscriptionStore, loadVapidKeys, type PushSubscriptionStore, type RedisClient, type StoreKeys } from '@ahp/store';
import { parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { REDIS, STORE_KEYS } from '../store/store.tokens.js';

/**
 * `/v1/operator/push`: Web Push for the console installed on a phone (docs/notifications.md
 * "Web Push"). Any operator manages their own subscriptions only; the workers send to them when
 * a `push` channel names the operator. The VAPID key pair is the deployment's, generated at
 * first start (whichever gateway or worker comes first) and kept in Redis.
 */
@Controller('v1/operator/push')
@UseGuards(OperatorAuthGuard)
export class PushController {
  private readonly subscriptions: PushSubscriptionStore;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(STORE_KEYS) private readonly keys: StoreKeys,
  ) {
    this.subscriptions = createPushSubscriptionStore({ redis, keys });
  }

  /** The application server key browsers subscribe with. */
  @Get('vapid-key')
  async vapidKey(): Promise<VapidKeyResponse> {
    return { public_key: (await loadVapidKeys(this.redis, this.keys)).publicKey };
  }

  @Get('subscriptions')
  async list(@CurrentOperator() operator: OperatorIdentity): Promise<PushSubscriptionsResponse> {
    const stored = await this.subscriptions.list(operator.id);
    return { subscriptions: stored.map((s) => ({ endpoint: s.subscription.endpoint, created_at: s.created_at })) };
  }

  /** Adds the browser's subscription for the calling operator (the same endpoint again replaces it). */
  @Post('subscriptions')
  @HttpCode(200)
  async subscribe(@CurrentOperator() operator: OperatorIdentity, @Body() body: unknown): Promise<PushSubscriptionsResponse> {
    const subscription = parseInput(PushSubscriptionSchema, body, 'push subscription');
    await this.subscriptions.add(operator.id, subscription, Date.now());
    return this.list(operator);
  }

  @Post('subscriptions/remove')
  @HttpCode(200)
  async unsubscribe(@CurrentOperator() operator: OperatorIdentity, @Body() body: unknown): Promise<PushSubscriptionsResponse> {
    const { endpoint } = parseInput(PushUnsubscribeBodySchema, body, 'push subscription');
    await this.subscriptions.remove(operator.id, endpoint);
    return this.list(operator);
  }
}
