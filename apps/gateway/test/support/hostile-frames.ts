/**
 * Hostile frames for the gateway's fuzz test: a valid frame of every client type (small, built
 * with fast-check), broken by one mutation that the protocol says must be refused — with the
 * error code and the id the gateway must answer with. The protocol library fuzzes the parser far
 * more thoroughly (libs/protocol/src/frames.fuzz.spec.ts); these are what travel over the socket.
 */
import fc from 'fast-check';
import { CONSUMPTION_ACTIONS, FORBIDDEN_KEYS, HOOK_TRIGGERS, LIMITS, PROTOCOL_VERSION, type ClientFrameType } from '@ahp/protocol';

type Path = (string | number)[];
type Frame = Record<string, unknown> & { type: ClientFrameType; id: string };

/** What one hostile message is, and how the gateway must answer it. */
export type HostileMessage =
  | { kind: string; text: string; expected: 'E_BAD_FRAME' | 'E_UNKNOWN_TYPE' | 'E_INVALID_FRAME'; id: string | null }
  | { kind: 'binary'; bytes: Buffer; expected: 'E_BAD_FRAME'; id: null };

const idArb = fc.stringMatching(/^[A-Za-z0-9._:-]{1,24}$/);
const textArb = fc.string({ unit: 'binary', maxLength: 24 });
const safeKey = fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/).filter((key) => !FORBIDDEN_KEYS.has(key));
const leafArb = fc.oneof(textArb, fc.integer(), fc.boolean(), fc.constant(null));
const objectArb = fc.dictionary(safeKey, fc.oneof(leafArb, fc.array(leafArb, { maxLength: 3 }), fc.dictionary(safeKey, leafArb, { maxKeys: 3 })), { maxKeys: 4 });

const VALID: { readonly [T in ClientFrameType]: fc.Arbitrary<Frame> } = {
  hello: fc.record({ id: idArb, name: textArb.filter((s) => s.length > 0) }).map(({ id, name }) => ({ type: 'hello', id, protocol: PROTOCOL_VERSION, client: { name, version: '1.0' } })),
  hook: fc.record({ id: fc.uuid(), trigger: fc.constantFrom(...HOOK_TRIGGERS), context: objectArb }).map((f) => ({ type: 'hook', ...f })),
  signal_response: fc
    .record({ id: idArb, signal_id: fc.uuid(), action: fc.constantFrom(...CONSUMPTION_ACTIONS) })
    .map(({ id, ...response }) => ({ type: 'signal_response', id, response: { ...response, consumed_at: '2026-02-09T10:00:00Z' } })),
  request: fc.record({ id: idArb, agent: idArb }).map(({ id, agent }) => ({
    type: 'request',
    id,
    request: { request_id: `req_${id}`, type: 'shutdown', target: { kind: 'agent', agent }, payload: {} },
  })),
  response: fc.record({ id: idArb, approve: fc.boolean() }).map(({ id, approve }) => ({ type: 'response', id, response: { request_id: `req_${id}`, type: 'shutdown_response', approve } })),
  cancel: idArb.map((id) => ({ type: 'cancel', id, request_id: `req_${id}` })),
  send: fc.record({ id: idArb, to: idArb, content: textArb }).map(({ id, ...message }) => ({ type: 'send', id, message: { ...message, type: 'message' } })),
  inbox_ack: fc.record({ id: idArb, ids: fc.array(idArb, { minLength: 1, maxLength: 3 }) }).map(({ id, ids }) => ({ type: 'inbox_ack', id, message_ids: ids })),
  event: idArb.map((id) => ({ type: 'event', id, event: { kind: 'control_signal', control_signal: { control: 'step_done', format: 'structured' } } })),
};

/** Required fields whose value has one fixed JSON kind, per type (besides `type`). */
const REQUIRED: { readonly [T in ClientFrameType]: readonly Path[] } = {
  hello: [['id'], ['protocol'], ['client'], ['client', 'name']],
  hook: [['id'], ['trigger'], ['context']],
  signal_response: [['id'], ['response'], ['response', 'signal_id'], ['response', 'action']],
  request: [['id'], ['request'], ['request', 'request_id'], ['request', 'target']],
  response: [['id'], ['response'], ['response', 'approve']],
  cancel: [['id'], ['request_id']],
  send: [['id'], ['message'], ['message', 'to'], ['message', 'content']],
  inbox_ack: [['id'], ['message_ids']],
  event: [['id'], ['event'], ['event', 'kind']],
};

/** Objects that refuse unknown keys, per type (`[]`: the frame itself). */
const STRICT: { readonly [T in ClientFrameType]: readonly Path[] } = {
  hello: [[], ['client']],
  hook: [[]],
  signal_response: [[], ['response']],
  request: [[], ['request'], ['request', 'target']],
  response: [[], ['response']],
  cancel: [[]],
  send: [[], ['message']],
  inbox_ack: [[]],
  event: [[], ['event']],
};

function getAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((current, key) => (current as Record<string | number, unknown>)[key], value);
}

/** A copy with the value at `path` replaced, or removed when `next` is undefined; own `__proto__` keys stay fields. */
function setAt(value: unknown, path: Path, next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path as [string | number, ...Path];
  if (Array.isArray(value)) return value.map((item, index) => (index === head ? setAt(item, rest, next) : item));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (key !== String(head)) defineOwn(copy, key, item);
    else if (!(rest.length === 0 && next === undefined)) defineOwn(copy, key, setAt(item, rest, next));
  }
  return copy;
}

function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function paths(value: unknown, prefix: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [prefix];
  const children = Array.isArray(value) ? value.map((item, index) => paths(item, [...prefix, index])) : Object.entries(value).map(([key, item]) => paths(item, [...prefix, key]));
  return [prefix, ...children.flat()];
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

const OTHER_KIND: Record<string, unknown> = { string: 7, number: 'seven', boolean: 'yes', null: {}, array: 'list', object: ['not', 'an', 'object'] };

function message(kind: string, frame: Frame, mutated: unknown, path: Path, shapeRefused = false): HostileMessage {
  const typeBroken = path.length === 1 && path[0] === 'type' && !shapeRefused;
  const id = (mutated as Record<string, unknown>)['id'];
  return { kind, text: JSON.stringify(mutated), expected: typeBroken ? 'E_UNKNOWN_TYPE' : 'E_INVALID_FRAME', id: id === frame.id ? frame.id : null };
}

/** One mutation of one valid frame. */
const mutatedArb: fc.Arbitrary<HostileMessage> = fc
  .constantFrom(...(Object.keys(VALID) as ClientFrameType[]))
  .chain((type) => VALID[type])
  .chain((frame) =>
    fc.oneof(
      fc.constantFrom<Path>(['type'], ...REQUIRED[frame.type]).map((path) => message(`drop ${path.join('.')}`, frame, setAt(frame, path, undefined), path)),
      fc.constantFrom<Path>(['type'], ...REQUIRED[frame.type]).map((path) => message(`swap ${path.join('.')}`, frame, setAt(frame, path, OTHER_KIND[kindOf(getAt(frame, path))]), path)),
      fc.constantFrom(...STRICT[frame.type]).map((path) => {
        const copy = { ...(getAt(frame, path) as Record<string, unknown>), x_unknown: true };
        return message(`unknown key at ${path.join('.') || '(top)'}`, frame, setAt(frame, path, copy), path.concat('x_unknown'));
      }),
      fc.tuple(fc.constantFrom(...paths(frame).filter((path) => kindOf(getAt(frame, path)) === 'object')), fc.constantFrom(...FORBIDDEN_KEYS)).map(([path, key]) => {
        const copy: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(getAt(frame, path) as Record<string, unknown>)) defineOwn(copy, k, v);
        defineOwn(copy, key, { polluted: true });
        return message(`${key} at ${path.join('.') || '(top)'}`, frame, setAt(frame, path, copy), path.concat(key));
      }),
      fc
        .tuple(
          fc.constantFrom(...paths(frame).filter((path) => path.length > 0)),
          fc.constantFrom<'deep' | 'long string' | 'long array'>('deep', 'long string', 'long array'),
        )
        .map(([path, what]) => {
          let value: unknown;
          if (what === 'deep') {
            value = 'bottom';
            for (let i = 0; i < 100; i++) value = [value];
          } else if (what === 'long string') value = 'x'.repeat(LIMITS.maxLongText + 1);
          else value = Array.from({ length: LIMITS.maxArrayLength + 1 }, () => 0);
          // Too deep is refused by the shape scan before parsing, whatever the key.
          return message(`${what} at ${path.join('.')}`, frame, setAt(frame, path, value), path, what === 'deep');
        }),
    ),
  );

/** A hostile message of any kind: a mutated frame, text that is not a JSON object, or a binary message. */
export const hostileMessageArb: fc.Arbitrary<HostileMessage> = fc.oneof(
  { weight: 6, arbitrary: mutatedArb },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((text) => !text.trimStart().startsWith('{')).map((text) => ({ kind: 'not a JSON object', text, expected: 'E_BAD_FRAME' as const, id: null })) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 0, maxLength: 64 }).map((bytes) => ({ kind: 'binary' as const, bytes: Buffer.from(bytes), expected: 'E_BAD_FRAME' as const, id: null })) },
);
