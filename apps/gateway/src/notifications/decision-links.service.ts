import { Inject, Injectable } from '@nestjs/common';
import {
  makeError,
  roleAllows,
  type AhpError,
  type DecisionLinkClaims,
  type DecisionLinkInspectResponse,
  type LinkRefusal,
  type OperatorIdentity,
  type ProtocolState,
  type RequestDecisionResponse,
} from '@ahp/protocol';
import { claimDecisionLink, decisionLinkUse, loadDecisionLinkSecret, verifyDecisionLink, type RedisClient, type StoreKeys } from '@ahp/store';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { RequestsService } from '../requests/requests.service.js';
import { REDIS, STORE_KEYS } from '../store/store.tokens.js';

export type LinkResult<T> = { ok: true; value: T } | { ok: false; error: AhpError };

const REFUSAL_TEXT: Readonly<Record<LinkRefusal, string>> = {
  invalid: 'this link is not valid: it was not issued by this AHP, or it was altered',
  expired: 'this link has expired; open the request in the console to decide it',
  used: 'this link was used already; each link works once',
  not_yours: 'this link was sent to someone else',
};

function refused(refusal: LinkRefusal, details: Record<string, string> = {}): AhpError {
  return makeError('E_FORBIDDEN', REFUSAL_TEXT[refusal], { link: refusal, ...details });
}

/**
 * Decision links on the gateway (docs/notifications.md "Decision links"): reading one (what it
 * would do, for the console's approval card) and redeeming it (the signed-in operator's tap).
 * A link never decides by itself: both calls run behind the operator's own credentials, and the
 * decision is made as that operator with every check of `POST /requests/:id/decision`. The
 * link only adds limits: its signature, expiry, single use and whom it was sent to.
 */
@Injectable()
export class DecisionLinksService {
  private secret: Promise<string> | undefined;
  private readonly log: JsonLogger;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(STORE_KEYS) private readonly keys: StoreKeys,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(RequestsService) private readonly requests: RequestsService,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'decision-links' });
  }

  /** The secret, read (or created) once; a failed read is retried on the next call. */
  private loadSecret(): Promise<string> {
    this.secret ??= loadDecisionLinkSecret(this.redis, this.keys, this.config.linkSecret).catch((error: unknown) => {
      this.secret = undefined;
      throw error;
    });
    return this.secret;
  }

  /** Signature, expiry, and whether `operator` is the one the link was sent to. */
  private async check(operator: OperatorIdentity, token: string, now: number): Promise<LinkResult<DecisionLinkClaims>> {
    const checked = verifyDecisionLink(await this.loadSecret(), token, now);
    if (!checked.ok) return { ok: false, error: refused(checked.refusal) };
    const claims = checked.claims;
    if (claims.operator !== undefined && claims.operator !== operator.id) return { ok: false, error: refused('not_yours', { request_id: claims.request_id }) };
    if (claims.role === 'admin' && !roleAllows(operator.role, 'admin')) return { ok: false, error: refused('not_yours', { request_id: claims.request_id, required_role: 'admin' }) };
    return { ok: true, value: claims };
  }

  /** The request if this operator may see it and it still waits; otherwise who settled it (E_CONFLICT), or not found. */
  private async waiting(operator: OperatorIdentity, requestId: string): Promise<LinkResult<ProtocolState>> {
    const found = await this.requests.get(requestId, operator);
    if (found === null) return { ok: false, error: makeError('E_NOT_FOUND', `no request ${requestId}`, { request_id: requestId }) };
    const state = found.state;
    if (state.status !== 'pending') {
      const who = state.decided_by === undefined ? '' : ` by ${state.decided_by}`;
      return {
        ok: false,
        error: makeError('E_CONFLICT', `request ${requestId} was ${state.status} already${who}`, {
          request_id: requestId,
          status: state.status,
          ...(state.decided_by === undefined ? {} : { decided_by: state.decided_by }),
          ...(state.decided_at === undefined ? {} : { decided_at: state.decided_at }),
        }),
      };
    }
    return { ok: true, value: state };
  }

  /** What the link would do. Does not use it: mail scanners and chat previews open links too. */
  async inspect(operator: OperatorIdentity, token: string, now = Date.now()): Promise<LinkResult<DecisionLinkInspectResponse>> {
    const checked = await this.check(operator, token, now);
    if (!checked.ok) return checked;
    const claims = checked.value;
    const use = await decisionLinkUse(this.redis, this.keys, claims.jti);
    // A request already settled says who settled it, before "used": that is what the operator wants to know.
    const request = await this.waiting(operator, claims.request_id);
    if (!request.ok) return request;
    if (use !== null) return { ok: false, error: refused('used', { request_id: claims.request_id, used_by: use.operator, used_at: use.at }) };
    return {
      ok: true,
      value: {
        link: {
          request_id: claims.request_id,
          decision: claims.decision,
          channel: claims.channel,
          tier: claims.tier,
          expires_at: new Date(claims.exp * 1000).toISOString(),
          ...(claims.operator === undefined ? {} : { operator: claims.operator }),
          ...(claims.role === undefined ? {} : { role: claims.role }),
        },
        request: request.value,
      },
    };
  }

  /**
   * The operator's tap: checks the link, takes its single use (SET NX: the first tap wins on
   * every gateway), then decides as the operator. A link whose request was settled meanwhile
   * answers who settled it and is not used up.
   */
  async redeem(operator: OperatorIdentity, token: string, now = Date.now()): Promise<LinkResult<RequestDecisionResponse>> {
    const checked = await this.check(operator, token, now);
    if (!checked.ok) return checked;
    const claims = checked.value;
    const request = await this.waiting(operator, claims.request_id);
    if (!request.ok) return request;
    // Refused by scope or role before the link is used up: only a decision that can happen uses it.
    const refusal = this.requests.checkOperatorMayDecide(operator, request.value);
    if (refusal !== null) return { ok: false, error: refusal };
    if (!(await claimDecisionLink(this.redis, this.keys, claims, operator.id, now))) {
      const use = await decisionLinkUse(this.redis, this.keys, claims.jti);
      return { ok: false, error: refused('used', { request_id: claims.request_id, ...(use === null ? {} : { used_by: use.operator, used_at: use.at }) }) };
    }
    const result = await this.requests.decideAsOperator(operator, claims.request_id, { approve: claims.decision === 'approve' }, now);
    this.log.info({ requestId: claims.request_id, operatorId: operator.id, decision: claims.decision, channel: claims.channel, tier: claims.tier, ...(result.ok ? { outcome: result.outcome } : { code: result.error.code }) }, 'decision link redeemed');
    if (!result.ok) return { ok: false, error: result.error };
    return { ok: true, value: { outcome: result.outcome, request: result.state } };
  }
}
