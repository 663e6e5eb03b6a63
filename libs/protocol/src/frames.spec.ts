import { describe, expect, it, vi } from 'vitest';
import { AhpErrorSchema, ERROR_CODES } from './errors.js';
import { ClientFrameSchema } from './client-frames.js';
import type { ClientFrame, ClientFrameType } from './client-frames.js';
import { FRAME_LIMITS, PROTOCOL_VERSION } from './frame-primitives.js';
import { CLIENT_FRAME_TYPES, FRAME_KINDS, REPLY_TYPE_FOR, SERVER_FRAME_TYPES, assertNever, isClientFrameType, isReplyFrame, isServerFrameType } from './frame-types.js';
import { parseClientFrame, parseServerFrame, utf8ByteLength } from './frames.js';
import type { FrameParseResult } from './frames.js';
import { ServerFrameSchema } from './server-frames.js';
import type { ServerFrame, ServerFrameType } from './server-frames.js';
import { LIMITS } from './primitives.js';
import { REQUEST_TYPES } from './request.js';

// --- fixtures --------------------------------------------------------------------------------------

const HOOK_ID = '3f1c2a9e-7b4d-4c1e-9a2f-5d6e7f8a9b0c';
const SIGNAL_ID = '8d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f60';
const AT = '2026-02-09T10:00:00Z';

const signal = {
  header: {
    id: SIGNAL_ID,
    type: 'quality-gate',
    timestamp: AT,
    source: 'checklist-validator',
    intensity: 'block',
    correlation_id: HOOK_ID,
  },
  context: { checklist: { incomplete_count: 2 } },
  payload: {
    level: 'blocking',
    decision: 'deny',
    reason: 'Checklist incomplete: [chk-001, chk-002]',
    resolvable: true,
    resolution_path: ['finish chk-001', 'finish chk-002'],
  },
};

const decision = {
  hook_id: HOOK_ID,
  trigger: 'pre-issue-submit',
  allowed: false,
  intensity: 'block',
  signals: [signal],
  modifications: [],
  warnings: [],
  decided_by: 'oracles',
  decided_at: AT,
};

const plan = {
  title: 'Optimize the orders query',
  steps: [
    { id: 's1', description: 'Add an index', dependencies: [], status: 'done', tools_expected: ['bash'] },
    { id: 's2', description: 'Rewrite the query', dependencies: ['s1'], status: 'in_progress', tools_expected: ['edit'] },
  ],
};

const pendingPlanApproval = {
  request_id: 'req_042871',
  type: 'plan_approval',
  sender: 'alice',
  target: { kind: 'agent', agent: 'lead' },
  status: 'pending',
  payload: { plan },
  created_at: AT,
  updated_at: AT,
};

const approvedPlanApproval = {
  ...pendingPlanApproval,
  status: 'approved',
  decided_by: 'lead',
  decided_at: '2026-02-09T10:05:00Z',
  updated_at: '2026-02-09T10:05:00Z',
  feedback: 'LGTM',
};

const inboxMessage = {
  id: 'msg_7f3a',
  from: 'lead',
  to: 'alice',
  content: 'Please take the orders ticket next.',
  type: 'message',
  metadata: {},
  sent_at: AT,
};

const VALID_CLIENT: Record<ClientFrameType, Record<string, unknown>> = {
  hello: {
    type: 'hello',
    id: 'c-1',
    protocol: PROTOCOL_VERSION,
    client: { name: 'ahp-sdk', version: '0.1.0' },
    session_id: 'sess_01',
    last_seq: 41,
  },
  hook: {
    type: 'hook',
    id: HOOK_ID,
    trigger: 'pre-tool-use',
    context: { tool: 'bash', input: { command: 'rm -rf build' } },
    deadline_ms: 5000,
  },
  signal_response: {
    type: 'signal_response',
    id: 'c-2',
    response: { signal_id: SIGNAL_ID, consumed_at: AT, action: 'retry_after_fix' },
  },
  request: {
    type: 'request',
    id: 'c-3',
    request: {
      request_id: 'req_042871',
      type: 'plan_approval',
      target: { kind: 'agent', agent: 'lead' },
      payload: { plan },
      deadline_ms: 3_600_000,
    },
  },
  response: {
    type: 'response',
    id: 'c-4',
    response: { request_id: 'req_042871', type: 'plan_approval_response', approve: true, feedback: 'LGTM' },
  },
  cancel: {
    type: 'cancel',
    id: 'c-4b',
    request_id: 'req_042871',
  },
  send: {
    type: 'send',
    id: 'c-5',
    message: { to: 'alice', content: 'Please take the orders ticket next.', type: 'message' },
  },
  inbox_ack: { type: 'inbox_ack', id: 'c-6', message_ids: ['msg_7f3a'] },
  event: {
    type: 'event',
    id: 'c-7',
    event: { kind: 'control_signal', control_signal: { step_id: 's1', control: 'step_done', format: 'structured' } },
  },
};

const VALID_SERVER: Record<ServerFrameType, Record<string, unknown>> = {
  welcome: {
    type: 'welcome',
    id: 'c-1',
    protocol: PROTOCOL_VERSION,
    session_id: 'sess_01',
    resumed: true,
    agent: { id: 'alice', name: 'Alice', team: 'orders', role: 'teammate' },
    gateway_id: 'gw-a',
    heartbeat_ms: 15_000,
    limits: { max_frame_bytes: 1_048_576, max_in_flight: 64, hook_deadline_ms: 10_000, max_hook_deadline_ms: 900_000 },
  },
  decision: { type: 'decision', id: HOOK_ID, decision },
  ack: { type: 'ack', id: 'c-3', result: { kind: 'request', request: pendingPlanApproval } },
  error: {
    type: 'error',
    id: 'c-4',
    error: { code: 'E_CONFLICT', message: 'already rejected by lead', retryable: false, details: { status: 'rejected' } },
  },
  signal: { type: 'signal', seq: 42, signal },
  request_update: { type: 'request_update', seq: 43, request: approvedPlanApproval },
  inbox: { type: 'inbox', seq: 44, message: inboxMessage },
  goaway: { type: 'goaway', reason: 'gateway draining for deploy', reconnect_after_ms: 500 },
};

function text(value: unknown): string {
  return JSON.stringify(value);
}

function failure<F>(result: FrameParseResult<F>): { error: ReturnType<typeof AhpErrorSchema.parse>; id: string | null } {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.frame)}`);
  expect(AhpErrorSchema.safeParse(result.error).success).toBe(true);
  expect(result.error.message).not.toMatch(/\n/);
  return { error: result.error, id: result.id };
}

// --- tables -----------------------------------------------------------------------------------------

describe('frame tables', () => {
  it('lists every client and server frame type exactly once', () => {
    expect([...CLIENT_FRAME_TYPES].sort()).toEqual(Object.keys(VALID_CLIENT).sort());
    expect([...SERVER_FRAME_TYPES].sort()).toEqual(Object.keys(VALID_SERVER).sort());
    expect(ClientFrameSchema.options.map((o) => o.shape.type.value).sort()).toEqual([...CLIENT_FRAME_TYPES].sort());
    expect(ServerFrameSchema.options.map((o) => o.shape.type.value).sort()).toEqual([...SERVER_FRAME_TYPES].sort());
  });

  it('keeps client and server types apart', () => {
    for (const type of CLIENT_FRAME_TYPES) expect(SERVER_FRAME_TYPES).not.toContain(type);
  });

  it('classifies kinds: every client frame is a request, server frames are replies or pushes', () => {
    for (const type of CLIENT_FRAME_TYPES) expect(FRAME_KINDS[type]).toBe('request');
    for (const type of SERVER_FRAME_TYPES) expect(['reply', 'push']).toContain(FRAME_KINDS[type]);
    expect(Object.keys(FRAME_KINDS).length).toBe(CLIENT_FRAME_TYPES.length + SERVER_FRAME_TYPES.length);
  });

  it('gives every reply an id and no push one', () => {
    for (const type of SERVER_FRAME_TYPES) {
      expect(Object.hasOwn(VALID_SERVER[type], 'id')).toBe(FRAME_KINDS[type] === 'reply');
    }
  });

  it('maps every request to its success reply', () => {
    expect(REPLY_TYPE_FOR.hello).toBe('welcome');
    expect(REPLY_TYPE_FOR.hook).toBe('decision');
    for (const type of CLIENT_FRAME_TYPES) expect(FRAME_KINDS[REPLY_TYPE_FOR[type]]).toBe('reply');
  });

  it('type guards accept exactly their own direction and ignore prototype keys', () => {
    expect(isClientFrameType('hook')).toBe(true);
    expect(isClientFrameType('welcome')).toBe(false);
    expect(isServerFrameType('welcome')).toBe(true);
    expect(isServerFrameType('toString')).toBe(false);
    expect(isClientFrameType('__proto__')).toBe(false);
  });

  it('offers one request shape per request type', () => {
    for (const type of REQUEST_TYPES) {
      const frame = {
        type: 'request',
        id: `r-${type}`,
        request: {
          request_id: 'req_x',
          type,
          target: { kind: 'operators' },
          payload:
            type === 'shutdown'
              ? { reason: 'done' }
              : type === 'plan_approval'
                ? { plan }
                : type === 'intervention'
                  ? { reason: 'MAX_ITER', summary: 'stopped after 21 iterations on step s2', iteration: 21, plan_step: 's2' }
                  : { tool: 'bash', input: { command: 'ls' }, input_digest: 'a'.repeat(64) },
        },
      };
      expect(parseClientFrame(text(frame)).ok).toBe(true);
    }
  });
});

// --- valid frames -------------------------------------------------------------------------------------

describe('valid frames', () => {
  for (const type of Object.keys(VALID_CLIENT) as ClientFrameType[]) {
    it(`parses a ${type} frame`, () => {
      const result = parseClientFrame(text(VALID_CLIENT[type]));
      if (!result.ok) throw new Error(result.error.message);
      expect(result.frame.type).toBe(type);
    });
  }
  for (const type of Object.keys(VALID_SERVER) as ServerFrameType[]) {
    it(`parses a ${type} frame`, () => {
      const result = parseServerFrame(text(VALID_SERVER[type]));
      if (!result.ok) throw new Error(result.error.message);
      expect(result.frame.type).toBe(type);
      expect(isReplyFrame(result.frame)).toBe(FRAME_KINDS[type] === 'reply');
    });
  }

  it('accepts the other event kinds', () => {
    const progress = { type: 'event', id: 'e1', event: { kind: 'plan_progress', plan, step_id: 's2', request_id: 'req_042871' } };
    const verification = {
      type: 'event',
      id: 'e2',
      event: {
        kind: 'verification',
        step_id: 's2',
        result: {
          ok: false,
          type: 'test_failure',
          summary: '1 test failed',
          details: [{ file: 'tests/test_orders.py', line: 12, error: 'AssertionError' }],
        },
      },
    };
    expect(parseClientFrame(text(progress)).ok).toBe(true);
    expect(parseClientFrame(text(verification)).ok).toBe(true);
  });

  it('accepts an ack without result, an ack with a stored message and an error without id', () => {
    expect(parseServerFrame(text({ type: 'ack', id: 'c-6' })).ok).toBe(true);
    expect(parseServerFrame(text({ type: 'ack', id: 'c-5', result: { kind: 'message', message: inboxMessage } })).ok).toBe(true);
    const error = { type: 'error', id: null, error: { code: 'E_BAD_FRAME', message: 'frame is not valid JSON', retryable: false } };
    expect(parseServerFrame(text(error)).ok).toBe(true);
  });

  it('applies defaults of nested schemas on the parsed frame', () => {
    const verification = {
      type: 'event',
      id: 'e3',
      event: { kind: 'verification', result: { ok: true, type: 'passed', summary: 'all green' } },
    };
    const result = parseClientFrame(text(verification));
    if (!result.ok || result.frame.type !== 'event' || result.frame.event.kind !== 'verification') {
      throw new Error('expected a verification event');
    }
    expect(result.frame.event.result.details).toEqual([]);
  });

  it('accepts a hello without resume', () => {
    const hello = { type: 'hello', id: 'h', protocol: 1, client: { name: 'py-client', version: '2.0.0' } };
    expect(parseClientFrame(text(hello)).ok).toBe(true);
  });
});

// --- invalid frames, one or more per type -------------------------------------------------------------------

const INVALID_CLIENT: [string, Record<string, unknown>, string][] = [
  ['hello without protocol', { ...VALID_CLIENT.hello, protocol: undefined }, 'protocol'],
  ['hello with a string protocol', { ...VALID_CLIENT.hello, protocol: '1' }, 'protocol'],
  ['hello with last_seq but no session', { type: 'hello', id: 'h', protocol: 1, client: { name: 'a', version: '1' }, last_seq: 3 }, 'last_seq'],
  ['hello with an extra client key', { ...VALID_CLIENT.hello, client: { name: 'a', version: '1', token: 'secret' } }, 'client.token'],
  ['hook whose id is not a uuid', { ...VALID_CLIENT.hook, id: 'hook-1' }, 'id'],
  ['hook with an unknown trigger', { ...VALID_CLIENT.hook, trigger: 'pre-lunch' }, 'trigger'],
  ['hook whose context is an array', { ...VALID_CLIENT.hook, context: [1, 2] }, 'context'],
  ['hook with a zero deadline', { ...VALID_CLIENT.hook, deadline_ms: 0 }, 'deadline_ms'],
  ['hook with a deadline beyond the limit', { ...VALID_CLIENT.hook, deadline_ms: FRAME_LIMITS.maxHookDeadlineMs + 1 }, 'deadline_ms'],
  ['signal_response with an unknown action', { ...VALID_CLIENT.signal_response, response: { signal_id: SIGNAL_ID, consumed_at: AT, action: 'ignore' } }, 'response.action'],
  ['request with a mismatched payload', { type: 'request', id: 'r', request: { request_id: 'req_1', type: 'shutdown', target: { kind: 'operators' }, payload: { plan } } }, 'request.payload.plan'],
  ['request with an unknown request type', { type: 'request', id: 'r', request: { request_id: 'req_1', type: 'coffee', target: { kind: 'operators' }, payload: {} } }, 'request.type'],
  ['request with a bad request id', { type: 'request', id: 'r', request: { request_id: '42', type: 'shutdown', target: { kind: 'operators' }, payload: {} } }, 'request.request_id'],
  ['response modifying a plan approval', { type: 'response', id: 'r', response: { request_id: 'req_1', type: 'plan_approval_response', approve: true, modified_input: { a: 1 } } }, 'response.modified_input'],
  ['send of a protocol message type', { type: 'send', id: 's', message: { to: 'lead', content: 'x', type: 'shutdown_response' } }, 'message.type'],
  ['send without recipient', { type: 'send', id: 's', message: { content: 'x', type: 'message' } }, 'message.to'],
  ['inbox_ack with no ids', { type: 'inbox_ack', id: 'a', message_ids: [] }, 'message_ids'],
  ['event of an unknown kind', { type: 'event', id: 'e', event: { kind: 'telemetry' } }, 'event.kind'],
  ['event with a cyclic plan', { type: 'event', id: 'e', event: { kind: 'plan_progress', plan: { title: 't', steps: [{ id: 'a', description: 'a', dependencies: ['a'], status: 'pending', tools_expected: [] }] } } }, 'event.plan.steps[0].dependencies[0]'],
  ['frame with an extra top-level key', { ...VALID_CLIENT.inbox_ack, extra: true }, 'extra'],
  ['frame without id', { type: 'inbox_ack', message_ids: ['m'] }, 'id'],
];

const INVALID_SERVER: [string, Record<string, unknown>, string][] = [
  ['welcome without limits', { ...VALID_SERVER.welcome, limits: undefined }, 'limits'],
  ['welcome with a tiny frame limit', { ...VALID_SERVER.welcome, limits: { max_frame_bytes: 10, max_in_flight: 1, hook_deadline_ms: 1, max_hook_deadline_ms: 1 } }, 'limits.max_frame_bytes'],
  ['decision for another hook', { ...VALID_SERVER.decision, id: '00000000-0000-4000-8000-000000000000' }, 'decision.hook_id'],
  ['decision allowed despite a block', { ...VALID_SERVER.decision, decision: { ...decision, allowed: true } }, 'decision.allowed'],
  ['ack with an unknown result kind', { type: 'ack', id: 'a', result: { kind: 'nothing' } }, 'result.kind'],
  ['error with an unknown code', { type: 'error', id: 'x', error: { code: 'E_OOPS', message: 'm', retryable: false } }, 'error.code'],
  ['error without id key', { type: 'error', error: { code: 'E_INTERNAL', message: 'm', retryable: true } }, 'id'],
  ['signal with seq 0', { ...VALID_SERVER.signal, seq: 0 }, 'seq'],
  ['signal whose payload contradicts its intensity', { ...VALID_SERVER.signal, signal: { ...signal, header: { ...signal.header, intensity: 'aid' } } }, 'signal.payload.level'],
  ['request_update pending with feedback', { ...VALID_SERVER.request_update, request: { ...pendingPlanApproval, feedback: 'no' } }, 'request.feedback'],
  ['inbox response without approve', { ...VALID_SERVER.inbox, message: { ...inboxMessage, type: 'shutdown_response', metadata: { request_id: 'req_1' } } }, 'message.metadata.approve'],
  ['goaway with a negative delay', { ...VALID_SERVER.goaway, reconnect_after_ms: -1 }, 'reconnect_after_ms'],
  ['push with a request id', { ...VALID_SERVER.goaway, id: 'x' }, 'id'],
];

describe('invalid frames', () => {
  for (const [name, frame, path] of INVALID_CLIENT) {
    it(`rejects ${name}`, () => {
      const { error } = failure(parseClientFrame(text(frame)));
      expect(error.code).toBe('E_INVALID_FRAME');
      const issues = (error.details?.['issues'] ?? []) as { path: string }[];
      expect(issues.map((issue) => issue.path)).toContain(path);
    });
  }
  for (const [name, frame, path] of INVALID_SERVER) {
    it(`rejects ${name}`, () => {
      const { error } = failure(parseServerFrame(text(frame)));
      expect(error.code).toBe('E_INVALID_FRAME');
      const issues = (error.details?.['issues'] ?? []) as { path: string }[];
      expect(issues.map((issue) => issue.path)).toContain(path);
    });
  }
});

// --- error classes -------------------------------------------------------------------------------------

describe('error classification', () => {
  it('E_FRAME_TOO_LARGE: counts UTF-8 bytes, not characters', () => {
    const frame = text({ ...VALID_CLIENT.send, message: { to: 'alice', content: 'é'.repeat(600), type: 'message' } });
    expect(frame.length).toBeLessThan(1024);
    expect(utf8ByteLength(frame)).toBeGreaterThan(1024);
    const { error, id } = failure(parseClientFrame(frame, 1024));
    expect(error.code).toBe('E_FRAME_TOO_LARGE');
    expect(error.details).toEqual({ max_frame_bytes: 1024 });
    expect(id).toBeNull();
    expect(parseClientFrame(frame, 4096).ok).toBe(true);
  });

  it('E_FRAME_TOO_LARGE by default above 1 MiB, checked before parsing', () => {
    const huge = `{"type":"hook","id":"${HOOK_ID}","context":{"a":"${'x'.repeat(FRAME_LIMITS.defaultMaxFrameBytes)}"}}`;
    expect(failure(parseClientFrame(huge)).error.code).toBe('E_FRAME_TOO_LARGE');
    expect(failure(parseClientFrame('['.repeat(FRAME_LIMITS.defaultMaxFrameBytes + 1))).error.code).toBe('E_FRAME_TOO_LARGE');
  });

  it('server frames have no size limit unless asked', () => {
    const big = text({ ...VALID_SERVER.goaway, reason: 'r'.repeat(10_000) });
    expect(parseServerFrame(big).ok).toBe(true);
    expect(failure(parseServerFrame(big, 1024)).error.code).toBe('E_FRAME_TOO_LARGE');
  });

  it('E_BAD_FRAME: not JSON', () => {
    for (const bad of ['', 'hello', '{"type":"hello"', "{'type':'hello'}", '{"type":"hello",}', 'NaN']) {
      const { error, id } = failure(parseClientFrame(bad));
      expect(error.code).toBe('E_BAD_FRAME');
      expect(error.retryable).toBe(false);
      expect(id).toBeNull();
    }
  });

  it('E_BAD_FRAME: JSON but not an object', () => {
    for (const bad of ['null', '[]', '[{"type":"hello"}]', '42', '"hello"', 'true']) {
      expect(failure(parseClientFrame(bad)).error.code).toBe('E_BAD_FRAME');
    }
  });

  it('E_BAD_FRAME: not a string at all (a Buffer slipped through)', () => {
    expect(failure(parseClientFrame(42 as unknown as string)).error.code).toBe('E_BAD_FRAME');
  });

  it('E_UNKNOWN_TYPE: missing, non-string, unknown or wrong-direction type', () => {
    const missing = failure(parseClientFrame(text({ id: 'x1' })));
    expect(missing.error.code).toBe('E_UNKNOWN_TYPE');
    expect(missing.error.message).toContain('no "type"');
    expect(failure(parseClientFrame(text({ type: 7, id: 'x2' }))).error.code).toBe('E_UNKNOWN_TYPE');
    const unknown = failure(parseClientFrame(text({ type: 'subscribe', id: 'x3' })));
    expect(unknown.error.code).toBe('E_UNKNOWN_TYPE');
    expect(unknown.error.details?.['expected']).toEqual([...CLIENT_FRAME_TYPES]);
    const wrongWay = failure(parseClientFrame(text(VALID_SERVER.welcome)));
    expect(wrongWay.error.code).toBe('E_UNKNOWN_TYPE');
    expect(wrongWay.error.message).toContain('server frame type');
    expect(failure(parseServerFrame(text(VALID_CLIENT.hello))).error.message).toContain('client frame type');
    expect(failure(parseClientFrame(text({ type: 'toString', id: 'x4' }))).error.code).toBe('E_UNKNOWN_TYPE');
  });

  it('E_UNKNOWN_TYPE echoes a long type only truncated', () => {
    const { error } = failure(parseClientFrame(text({ type: 't'.repeat(10_000), id: 'x' })));
    expect(error.message.length).toBeLessThan(200);
  });

  it('E_INVALID_FRAME: a one-line message naming the first problem and the count', () => {
    const frame = { type: 'hook', id: HOOK_ID, trigger: 'nope', context: 'nope', deadline_ms: -1 };
    const { error, id } = failure(parseClientFrame(text(frame)));
    expect(error.code).toBe('E_INVALID_FRAME');
    expect(id).toBe(HOOK_ID);
    expect(error.message).toMatch(/^invalid hook frame: \S+: .+ \(and 2 more issues\)$/);
    expect(error.details?.['type']).toBe('hook');
    expect(error.details?.['issue_count']).toBe(3);
  });

  it('E_INVALID_FRAME lists at most ten issues but counts all', () => {
    const ids = Array.from({ length: 50 }, () => 'bad id!');
    const { error } = failure(parseClientFrame(text({ type: 'inbox_ack', id: 'a', message_ids: ids })));
    const issues = error.details?.['issues'] as unknown[];
    expect(issues.length).toBe(FRAME_LIMITS.maxReportedIssues);
    expect(error.details?.['issue_count']).toBe(50);
    expect(issues[0]).toEqual({ path: 'message_ids[0]', message: expect.any(String) });
  });

  it('renders odd keys in paths readably', () => {
    const frame = { ...VALID_CLIENT.hook, context: { 'a b': { ok: 1, bad: Number.MAX_VALUE * 0 } } };
    expect(parseClientFrame(text(frame)).ok).toBe(true);
    const deep = { ...VALID_CLIENT.hook, context: { 'a b': { constructor: 1 } } };
    const { error } = failure(parseClientFrame(text(deep)));
    expect((error.details?.['issues'] as { path: string }[])[0]?.path).toBe('context["a b"].constructor');
  });

  it('every error it returns is marked with the retryable flag of the table', () => {
    for (const bad of ['', '[]', '{"type":"x"}', text({ type: 'hook' })]) {
      const { error } = failure(parseClientFrame(bad));
      expect(error.retryable).toBe(ERROR_CODES[error.code].retryable);
    }
  });
});

// --- hostile input ----------------------------------------------------------------------------------------

describe('hostile input', () => {
  it('rejects __proto__ as a frame key, without touching any prototype', () => {
    const raw = `{"type":"inbox_ack","id":"a1","message_ids":["m"],"__proto__":{"polluted":true}}`;
    const { error, id } = failure(parseClientFrame(raw));
    expect(error.code).toBe('E_INVALID_FRAME');
    expect(id).toBe('a1');
    expect((error.details?.['issues'] as { path: string }[])[0]?.path).toBe('__proto__');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('rejects __proto__ at the top of a free-form object and deep inside it', () => {
    const top = `{"type":"hook","id":"${HOOK_ID}","trigger":"pre-tool-use","context":{"__proto__":{"isAdmin":true}}}`;
    const topResult = failure(parseClientFrame(top));
    expect(topResult.error.code).toBe('E_INVALID_FRAME');
    expect(topResult.id).toBe(HOOK_ID);
    expect(topResult.error.message).toContain('context.__proto__');

    const deep = `{"type":"hook","id":"${HOOK_ID}","trigger":"pre-tool-use","context":{"a":[{"b":{"__proto__":{"x":1}}}]}}`;
    expect(failure(parseClientFrame(deep)).error.message).toContain('context.a[0].b.__proto__');

    const server = `{"type":"inbox","seq":1,"message":{"id":"m","from":"a","to":"b","content":"c","type":"message","metadata":{"__proto__":{}},"sent_at":"${AT}"}}`;
    expect(failure(parseServerFrame(server)).error.code).toBe('E_INVALID_FRAME');
    expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined();
  });

  it('rejects constructor and prototype keys too', () => {
    const frame = { ...VALID_CLIENT.hook, context: { prototype: { x: 1 } } };
    expect(failure(parseClientFrame(text(frame))).error.code).toBe('E_INVALID_FRAME');
  });

  it('rejects strings over their schema bound even when the frame fits', () => {
    const frame = { ...VALID_CLIENT.send, message: { to: 'alice', content: 'x'.repeat(LIMITS.maxLongText + 1), type: 'message' } };
    const { error, id } = failure(parseClientFrame(text(frame), 4 * 1024 * 1024));
    expect(error.code).toBe('E_INVALID_FRAME');
    expect(id).toBe('c-5');
    expect(error.message.length).toBeLessThan(600);
  });

  it('survives deep nesting without overflowing the stack', () => {
    const depth = 100_000;
    const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const frame = `{"type":"hook","id":"${HOOK_ID}","trigger":"pre-tool-use","context":{"a":${nested}}}`;
    const started = performance.now();
    const { error } = failure(parseClientFrame(frame));
    expect(error.code).toBe('E_INVALID_FRAME');
    expect(error.message).toContain('nested deeper than');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('refuses a frame nested too deep before JSON.parse runs, naming its id', () => {
    const depth = 450_000;
    const frame = `{"type":"hook","id":"${HOOK_ID}","trigger":"pre-tool-use","context":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const refused = failure(parseClientFrame(frame, 4 * 1024 * 1024));
      expect(refused).toMatchObject({ id: HOOK_ID, error: { code: 'E_INVALID_FRAME', details: { type: 'hook', issue_count: 1 } } });
      expect(refused.error.message).toContain('nested deeper than 64 levels');
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('refuses a frame with too many values or keys before JSON.parse runs', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const wide = `{"type":"hook","id":"${HOOK_ID}","trigger":"stop","context":{"a":[${Array.from({ length: 400 }, () => `[${'0,'.repeat(599)}0]`).join(',')}]}}`;
      expect(failure(parseClientFrame(wide)).error.message).toContain('more than 200000 values');
      const keys = `{"type":"hook","id":"${HOOK_ID}","trigger":"stop","context":{${Array.from({ length: 1001 }, (_, i) => `"k${i}":0`).join(',')}}}`;
      expect(failure(parseClientFrame(keys))).toMatchObject({ id: HOOK_ID, error: { code: 'E_INVALID_FRAME' } });
      expect(parse).not.toHaveBeenCalled();
      // A type that is none is still answered as such when it was read before the violation.
      const unknown = `{"type":"teleport","id":"t-1","x":${'['.repeat(100)}${']'.repeat(100)}}`;
      expect(failure(parseClientFrame(unknown))).toMatchObject({ id: 't-1', error: { code: 'E_UNKNOWN_TYPE' } });
    } finally {
      parse.mockRestore();
    }
  });

  it('never throws, whatever the text', () => {
    const samples = [
      '\u0000',
      '\uD800',
      '{"type":"hello","id":"\uD800"}',
      '{"type":"hook","id":null}',
      '{"type":"hook","context":{"a":1e400}}',
      '{"type":"hello","id":"x","protocol":1e400,"client":{"name":"a","version":"b"}}',
      '{"type":"hello","type":"hook"}',
      JSON.stringify({ type: 'event', id: 'e', event: { kind: 'plan_progress', plan: { title: 't', steps: Array.from({ length: 2000 }, (_, i) => ({ id: `s${i}`, description: 'd', dependencies: [], status: 'pending', tools_expected: [] })) } } }),
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const alphabet = '{}[]":,0123456789abcdefhiklnoprstuy-_ \\e.';
    for (let i = 0; i < 500; i++) {
      let s = '';
      const length = Math.floor(random() * 60);
      for (let j = 0; j < length; j++) s += alphabet[Math.floor(random() * alphabet.length)];
      samples.push(s, `{"type":"hook","id":"${HOOK_ID}",${s}}`);
    }
    for (const sample of samples) {
      expect(() => parseClientFrame(sample)).not.toThrow();
      expect(() => parseServerFrame(sample)).not.toThrow();
      const result = parseClientFrame(sample);
      if (!result.ok) expect(AhpErrorSchema.safeParse(result.error).success).toBe(true);
    }
  });
});

// --- id recovery -----------------------------------------------------------------------------------

describe('id recovery', () => {
  it('returns the id of a frame that fails its schema', () => {
    expect(failure(parseClientFrame(text({ type: 'send', id: 'req-77', message: {} }))).id).toBe('req-77');
  });

  it('returns the id of a frame with an unknown type', () => {
    expect(failure(parseClientFrame(text({ type: 'subscribe', id: 'sub-1' }))).id).toBe('sub-1');
  });

  it('returns the hook id of a broken hook', () => {
    expect(failure(parseClientFrame(text({ type: 'hook', id: HOOK_ID }))).id).toBe(HOOK_ID);
  });

  it('returns null when the id is missing or not a valid id', () => {
    expect(failure(parseClientFrame(text({ type: 'send' }))).id).toBeNull();
    expect(failure(parseClientFrame(text({ type: 'send', id: 42 }))).id).toBeNull();
    expect(failure(parseClientFrame(text({ type: 'send', id: '' }))).id).toBeNull();
    expect(failure(parseClientFrame(text({ type: 'send', id: 'has space' }))).id).toBeNull();
    expect(failure(parseClientFrame(text({ type: 'send', id: 'x'.repeat(129) }))).id).toBeNull();
    expect(failure(parseClientFrame(text({ type: 'send', id: { nested: 'x' } }))).id).toBeNull();
  });

  it('does not take an id from the prototype chain or from nested objects', () => {
    expect(failure(parseClientFrame(text({ type: 'send', message: { id: 'inner' } }))).id).toBeNull();
    expect(failure(parseClientFrame('{"type":"send","__proto__":{"id":"proto"}}')).id).toBeNull();
  });

  it('recovers ids of server frames for the SDK', () => {
    expect(failure(parseServerFrame(text({ type: 'ack', id: 'c-9', result: 5 }))).id).toBe('c-9');
  });
});

// --- helpers ------------------------------------------------------------------------------------------

describe('utf8ByteLength', () => {
  it('matches TextEncoder on mixed text, including astral and lone surrogates', () => {
    const encoder = new TextEncoder();
    for (const sample of ['', 'abc', 'é', '中文', '😀', 'a😀b', '\uD800', '\uDC00x', 'x\uD800', '\uD83D\uDE00\uD83D', '€'.repeat(100)]) {
      expect(utf8ByteLength(sample)).toBe(encoder.encode(sample).length);
    }
  });
});

describe('assertNever', () => {
  it('makes switches over frames exhaustive and throws on the impossible', () => {
    const describeFrame = (frame: ClientFrame | ServerFrame): string => {
      switch (FRAME_KINDS[frame.type]) {
        case 'request':
          return 'request';
        case 'reply':
          return 'reply';
        case 'push':
          return 'push';
        default:
          return assertNever(FRAME_KINDS[frame.type] as never, 'frame kind');
      }
    };
    expect(describeFrame(VALID_SERVER.goaway as ServerFrame)).toBe('push');
    expect(() => assertNever('surprise' as never, 'frame type')).toThrow('unexpected frame type: "surprise"');
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => assertNever(cyclic as never)).toThrow('unexpected value');
  });
});
