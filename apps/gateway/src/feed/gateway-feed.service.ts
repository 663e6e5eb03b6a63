import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { GatewayFeed } from '@ahp/store';
import { HooksService } from '../hooks/hooks.service.js';
import { InboxService } from '../inbox/inbox.service.js';
import { OperatorSignalsService } from '../operator-signals/operator-signals.service.js';
import { GATEWAY_FEED } from '../store/store.tokens.js';

/**
 * Reads this gateway's feed — everything the store routes to it — and hands each entry to the
 * feature that serves it: hook decisions to {@link HooksService}, "agent X has new messages"
 * notices to {@link InboxService}, "an operator sent agent X a signal" notices to
 * {@link OperatorSignalsService}. One reader for all, since a feed stream can be read once.
 * It starts before the gateway listens, so no decision for a hook sent here can be missed; the
 * store stops it on shutdown.
 */
@Injectable()
export class GatewayFeedService implements OnModuleInit {
  constructor(
    @Inject(GATEWAY_FEED) private readonly feed: GatewayFeed,
    @Inject(HooksService) private readonly hooks: HooksService,
    @Inject(InboxService) private readonly inbox: InboxService,
    @Inject(OperatorSignalsService) private readonly operatorSignals: OperatorSignalsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.feed.start({
      onDecision: (decision, traceparent, decidedAt) => void this.hooks.deliver(decision, 'feed', traceparent, decidedAt),
      onInbox: (notice) => this.inbox.notify(notice.agent_id),
      onSignal: (notice) => this.operatorSignals.notify(notice.agent_id),
    });
  }
}
