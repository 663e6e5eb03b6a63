/**
 * How each audited operator route is recorded (see `@Audited`). Kept here, beside the trail,
 * so that what the trail says about each action is one reviewable list.
 */
import { ENFORCEMENT_PARTS, MAX_CONFIG_SOURCE_BYTES, type EnforcementResetResponse, type JsonObject, type NotificationReplayResponse, type OperatorSignalResponse, type PublishConfigResponse, type RequestDecisionResponse, type ValidateConfigResponse } from '@ahp/protocol';
import { configDigest } from '@ahp/store';
import type { AuditSpec, AuditedRequest } from './audited.decorator.js';

function field(request: AuditedRequest, name: string): unknown {
  const body = request.body;
  return body !== null && typeof body === 'object' && Object.hasOwn(body, name) ? (body as Record<string, unknown>)[name] : undefined;
}

/** `POST /v1/operator/requests/:requestId/decision`: the request, yes or no, and the status it ended in. */
export const REQUEST_DECISION_AUDIT: AuditSpec<RequestDecisionResponse> = {
  action: 'request.decide',
  target: (request) => request.params['requestId'] ?? '',
  outcome: (result) => (result.outcome === 'applied' ? 'applied' : 'unchanged'),
  details: (request, result) => {
    const details: JsonObject = {};
    const approve = field(request, 'approve');
    if (typeof approve === 'boolean') details['approve'] = approve;
    if (field(request, 'modified_input') !== undefined) details['modified_input'] = true;
    if (result !== undefined) {
      details['status'] = result.request.status;
      details['request_type'] = result.request.type;
    }
    return details;
  },
};

/** `POST /v1/operator/config`: the hooks configuration, the version now current (and the version a rollback restored), or why it was refused. */
export const CONFIG_PUBLISH_AUDIT: AuditSpec<PublishConfigResponse> = {
  action: 'config.publish',
  target: () => 'hooks',
  outcome: (result) => (result.unchanged ? 'unchanged' : 'applied'),
  details: (request, result) => {
    const source = field(request, 'source');
    const details: JsonObject = typeof source === 'string' ? { bytes: Buffer.byteLength(source, 'utf8') } : {};
    // A rollback says which earlier version it restored (the service checked the text is that version's).
    const rollbackOf = field(request, 'rollback_of');
    if (typeof rollbackOf === 'number' && Number.isSafeInteger(rollbackOf) && rollbackOf > 0) details['rollback_of'] = rollbackOf;
    if (result !== undefined) details['version'] = result.version;
    return details;
  },
};

/**
 * `POST /v1/operator/config/validate`: a candidate checked without publishing. Never its text: its
 * size, its SHA-256 (the digest a publish compares and a version's `digest` shows, so the check can
 * be matched to a later publish; computed only up to the largest text a publish takes), and whether
 * it was valid with its issue and warning counts. It changes nothing: `unchanged`, or `refused`
 * for a body the route cannot read.
 */
export const CONFIG_VALIDATE_AUDIT: AuditSpec<ValidateConfigResponse> = {
  action: 'config.validate',
  target: () => 'hooks',
  outcome: () => 'unchanged',
  details: (request, result) => {
    const source = field(request, 'source');
    const details: JsonObject = {};
    if (typeof source === 'string') {
      const bytes = Buffer.byteLength(source, 'utf8');
      details['bytes'] = bytes;
      if (bytes <= MAX_CONFIG_SOURCE_BYTES) details['sha256'] = configDigest(source);
    }
    if (result !== undefined) {
      details['valid'] = result.valid;
      details['issue_count'] = result.issues.length;
      details['warning_count'] = result.warnings.length;
    }
    return details;
  },
};

/** `POST /v1/operator/agents/:agentId/signals`: the agent, the intensity, and the signal sent and whether the agent was connected. */
export const OPERATOR_SIGNAL_AUDIT: AuditSpec<OperatorSignalResponse> = {
  action: 'signal.send',
  target: (request) => request.params['agentId'] ?? '',
  outcome: () => 'applied',
  details: (request, result) => {
    const details: JsonObject = {};
    const intensity = field(request, 'intensity');
    if (typeof intensity === 'string') details['intensity'] = intensity.slice(0, 32);
    if (result !== undefined) {
      details['signal_id'] = result.signal.header.id;
      details['delivery'] = result.delivery;
    }
    return details;
  },
};

/**
 * The request a decision link names, read from its claims for the trail only (unverified here:
 * the service refuses a forged link, and the trail then records the refusal under this label).
 */
function linkTarget(request: AuditedRequest): string {
  const token = field(request, 'token');
  if (typeof token !== 'string') return 'link';
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { request_id?: unknown };
    return typeof claims.request_id === 'string' ? claims.request_id.slice(0, 128) : 'link';
  } catch {
    return 'link';
  }
}

/** `POST /v1/operator/links/redeem`: a decision made with a notification's link (the token itself is never recorded). */
export const LINK_DECISION_AUDIT: AuditSpec<RequestDecisionResponse> = {
  action: 'request.decide',
  target: linkTarget,
  outcome: (result) => (result.outcome === 'applied' ? 'applied' : 'unchanged'),
  details: (_request, result) => {
    const details: JsonObject = { via: 'link' };
    if (result !== undefined) {
      details['approve'] = result.request.status === 'approved';
      details['status'] = result.request.status;
      details['request_type'] = result.request.type;
    }
    return details;
  },
};

/** `POST /v1/operator/notifications/dead-letters/:deliveryId/replay`: the delivery queued again. */
export const NOTIFICATION_REPLAY_AUDIT: AuditSpec<NotificationReplayResponse> = {
  action: 'notification.replay',
  target: (request) => request.params['deliveryId'] ?? '',
  outcome: () => 'applied',
  details: (_request, result): JsonObject => (result === undefined ? {} : { request_id: result.request_id, channel: result.channel }),
};

/**
 * `POST /v1/operator/agents/:agentId/enforcement/reset`: the agent, the parts reset and what they
 * held just before (counts, the unanswered signal ids, the rule counters: `before` of the answer,
 * bounded by its schema). `unchanged` when none of the parts held anything. A refused call records
 * the parts it asked for, when they were known parts.
 */
export const ENFORCEMENT_RESET_AUDIT: AuditSpec<EnforcementResetResponse> = {
  action: 'agent.enforcement.reset',
  target: (request) => request.params['agentId'] ?? '',
  outcome: (result) => (result.changed ? 'applied' : 'unchanged'),
  details: (request, result): JsonObject => {
    if (result !== undefined) return { parts: result.parts, before: result.before };
    const parts = field(request, 'parts');
    const known = Array.isArray(parts) ? ENFORCEMENT_PARTS.filter((part) => parts.includes(part)) : [];
    return known.length > 0 ? { parts: known } : {};
  },
};
