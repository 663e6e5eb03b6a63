import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  SEED_PLAN_APPROVAL_RESPONSE_MESSAGE,
  SEED_SHUTDOWN_REQUEST_MESSAGE,
  SEED_SHUTDOWN_RESPONSE_MESSAGE,
  SEED_SHUTDOWN_STATE,
} from '../test/fixtures/domain-seeds.js';
import {
  INBOX_MESSAGE_TYPES,
  InboxMessageSchema,
  InboxMetadataSchema,
  isProtocolMessage,
  isProtocolResponse,
  requestIdOf,
  requestMessageType,
  toProtocolResponse,
  type InboxMessage,
} from './inbox.js';
import { LIMITS } from './primitives.js';
import { ProtocolStateSchema, applyResponse } from './request.js';

function issues(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  expect(result.success).toBe(false);
  return result.error?.issues ?? [];
}

const CHAT = {
  id: 'msg-0',
  from: 'lead',
  to: 'alice',
  content: '请优化 DB 查询',
  type: 'message',
  metadata: {},
  sent_at: '2026-02-09T09:59:00Z',
};

describe('InboxMessageSchema', () => {
  it('parses the design example shutdown request and response messages unchanged (docs/spec/teams.md#shutdown)', () => {
    expect(InboxMessageSchema.parse(SEED_SHUTDOWN_REQUEST_MESSAGE)).toEqual(SEED_SHUTDOWN_REQUEST_MESSAGE);
    expect(InboxMessageSchema.parse(SEED_SHUTDOWN_RESPONSE_MESSAGE)).toEqual(SEED_SHUTDOWN_RESPONSE_MESSAGE);
    expect(InboxMessageSchema.parse(SEED_PLAN_APPROVAL_RESPONSE_MESSAGE)).toEqual(SEED_PLAN_APPROVAL_RESPONSE_MESSAGE);
  });

  it('parses a plain message, with metadata defaulting to {}', () => {
    const { metadata: _m, ...noMeta } = CHAT;
    expect(InboxMessageSchema.parse(noMeta)).toEqual(CHAT);
  });

  it('knows the ten message types and no others', () => {
    expect(INBOX_MESSAGE_TYPES).toHaveLength(10);
    expect(issues(InboxMessageSchema, { ...CHAT, type: 'broadcast' })[0]).toMatchObject({ code: 'invalid_value', path: ['type'] });
  });

  it('a protocol message needs a request_id', () => {
    const { request_id: _r, ...noId } = SEED_SHUTDOWN_REQUEST_MESSAGE.metadata;
    expect(issues(InboxMessageSchema, { ...SEED_SHUTDOWN_REQUEST_MESSAGE, metadata: noId })[0]).toMatchObject({
      path: ['metadata', 'request_id'],
      message: 'a shutdown_request message needs a request_id',
    });
  });

  it("a response must say approve (the design example's abbreviated {approve: true} without id is rejected too)", () => {
    expect(
      issues(InboxMessageSchema, { ...SEED_SHUTDOWN_RESPONSE_MESSAGE, metadata: { request_id: 'req_042871' } })[0],
    ).toMatchObject({ path: ['metadata', 'approve'] });
    expect(issues(InboxMessageSchema, { ...SEED_PLAN_APPROVAL_RESPONSE_MESSAGE, metadata: { approve: true } })[0]).toMatchObject({
      path: ['metadata', 'request_id'],
    });
  });

  it('types the known metadata keys', () => {
    const bad = { ...SEED_SHUTDOWN_RESPONSE_MESSAGE, metadata: { request_id: 'req_042871', approve: 'true' } };
    expect(issues(InboxMessageSchema, bad)[0]).toMatchObject({ code: 'invalid_type', path: ['metadata', 'approve'] });
    const badId = { ...SEED_SHUTDOWN_REQUEST_MESSAGE, metadata: { request_id: '042871' } };
    expect(issues(InboxMessageSchema, badId)[0]).toMatchObject({ path: ['metadata', 'request_id'] });
  });

  it('allows other metadata keys as safe JSON only', () => {
    const extra = { ...CHAT, metadata: { trace_id: 'abc', tags: ['db'], nested: { ok: true } } };
    expect(InboxMessageSchema.parse(extra)).toEqual(extra);
    const polluted = { ...CHAT, metadata: JSON.parse('{"__proto__":{"isAdmin":true}}') };
    expect(issues(InboxMessageSchema, polluted)[0]).toMatchObject({ path: ['metadata', '__proto__'] });
    const deep = { ...CHAT, metadata: { a: { constructor: 1 } } };
    expect(issues(InboxMessageSchema, deep)[0]).toMatchObject({ path: ['metadata', 'a', 'constructor'] });
    expect(issues(InboxMetadataSchema, [1, 2])[0]).toMatchObject({ code: 'invalid_type' });
    expect(issues(InboxMetadataSchema, { f: () => 1 })[0]?.message).toContain('not a JSON value');
  });

  it('rejects huge content and unknown top-level keys', () => {
    expect(issues(InboxMessageSchema, { ...CHAT, content: 'x'.repeat(LIMITS.maxLongText + 1) })[0]).toMatchObject({
      code: 'too_big',
      path: ['content'],
    });
    expect(issues(InboxMessageSchema, { ...CHAT, request_id: 'req_1' })[0]).toMatchObject({ code: 'unrecognized_keys' });
  });
});

describe('routing helpers', () => {
  const request = InboxMessageSchema.parse(SEED_SHUTDOWN_REQUEST_MESSAGE);
  const response = InboxMessageSchema.parse(SEED_SHUTDOWN_RESPONSE_MESSAGE);
  const chat = InboxMessageSchema.parse(CHAT);
  const idle = InboxMessageSchema.parse({ ...CHAT, type: 'idle_notification', content: '' });

  it('isProtocolMessage: requests and responses, not chat or idle notifications', () => {
    expect([request, response, chat, idle].map(isProtocolMessage)).toEqual([true, true, false, false]);
  });

  it('isProtocolResponse: the rule of docs/spec/teams.md#messages-and-inboxes, *_response with a request_id', () => {
    expect([request, response, chat, idle].map(isProtocolResponse)).toEqual([false, true, false, false]);
    const unvalidated = { type: 'shutdown_response', metadata: {} } as unknown as InboxMessage;
    expect(isProtocolResponse(unvalidated)).toBe(false);
  });

  it('requestIdOf', () => {
    expect(requestIdOf(request)).toBe('req_042871');
    expect(requestIdOf(chat)).toBeNull();
  });

  it('requestMessageType', () => {
    expect(requestMessageType('shutdown')).toBe('shutdown_request');
    expect(requestMessageType('tool_approval')).toBe('tool_approval_request');
  });
});

describe('toProtocolResponse', () => {
  it('docs/spec/teams.md#matching-responses: the shutdown_response decides the pending request', () => {
    const msg = InboxMessageSchema.parse(SEED_SHUTDOWN_RESPONSE_MESSAGE);
    const response = toProtocolResponse(msg);
    expect(response).toEqual({
      request_id: 'req_042871',
      type: 'shutdown_response',
      approve: true,
      feedback: 'Shutting down gracefully.',
    });
    const result = applyResponse(ProtocolStateSchema.parse(SEED_SHUTDOWN_STATE), response!, { decidedBy: msg.from, now: msg.sent_at });
    expect(result).toMatchObject({ outcome: 'applied', state: { status: 'approved', decided_by: 'alice' } });
  });

  it('takes feedback from metadata first, else from the content', () => {
    const msg = InboxMessageSchema.parse(SEED_PLAN_APPROVAL_RESPONSE_MESSAGE);
    expect(toProtocolResponse(msg)?.feedback).toBe('LGTM');
    const withMeta = InboxMessageSchema.parse({
      ...SEED_PLAN_APPROVAL_RESPONSE_MESSAGE,
      metadata: { ...SEED_PLAN_APPROVAL_RESPONSE_MESSAGE.metadata, feedback: '先加测试' },
    });
    expect(toProtocolResponse(withMeta)?.feedback).toBe('先加测试');
    const blank = InboxMessageSchema.parse({ ...SEED_PLAN_APPROVAL_RESPONSE_MESSAGE, content: '  ' });
    expect(toProtocolResponse(blank)).not.toHaveProperty('feedback');
  });

  it('carries modified_input only for an approving tool approval response', () => {
    const base = {
      ...SEED_SHUTDOWN_RESPONSE_MESSAGE,
      type: 'tool_approval_response',
      metadata: { request_id: 'req_t1', approve: true, modified_input: { command: 'ls' } },
    };
    expect(toProtocolResponse(InboxMessageSchema.parse(base))?.modified_input).toEqual({ command: 'ls' });
    const rejected = InboxMessageSchema.parse({ ...base, metadata: { ...base.metadata, approve: false } });
    expect(toProtocolResponse(rejected)).not.toHaveProperty('modified_input');
  });

  it('returns null for anything that is not a protocol response', () => {
    expect(toProtocolResponse(InboxMessageSchema.parse(SEED_SHUTDOWN_REQUEST_MESSAGE))).toBeNull();
    expect(toProtocolResponse(InboxMessageSchema.parse(CHAT))).toBeNull();
  });
});
