/**
 * DecisionFeed: the decisions-only view of a gateway's feed, kept for gateways that do not (yet)
 * handle inbox notices.
 */
import type { DecisionFeed } from './contracts.js';
import { createGatewayFeed, type GatewayFeedOptions } from './gateway-feed.js';

/** Options of {@link createDecisionFeed}: those of the gateway feed it reads. */
export type DecisionFeedOptions = GatewayFeedOptions;

/**
 * Creates the DecisionFeed of one gateway: a {@link createGatewayFeed} feed with only a decision
 * handler, so inbox notices on the same stream are skipped unread. Behaviour (start point,
 * reconnects, parse failures, stop) is the gateway feed's. A gateway that delivers inbox messages
 * should use one gateway feed with both handlers instead of two feeds on the same stream.
 *
 * @throws Error from `start` when called twice.
 */
export function createDecisionFeed(options: DecisionFeedOptions): DecisionFeed {
  const feed = createGatewayFeed(options);
  return {
    start: (onDecision) => feed.start({ onDecision }),
    stop: () => feed.stop(),
  };
}
