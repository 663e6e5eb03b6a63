/**
 * fast-check arbitraries for the client frames, written by hand from the schemas in
 * `src/client-frames.ts` (and the schemas they use), and mutations that turn a valid frame into one the
 * gateway must refuse.
 *
 * Valid frames cover every frame type, every optional field, every request and event kind, and
 * free-form JSON (hook contexts, metadata, details) with arbitrary nesting and text in any
 * Unicode, lone surrogates included. Mutations work on the frame as a JSON tree: a path is a list
 * of keys and indexes from the frame's top.
 */
import fc from 'fast-check';
import type { ClientFrameType } from '../src/client-frames.js';
import { FRAME_LIMITS } from '../src/frame-primitives.js';
import { FORBIDDEN_KEYS, LIMITS } from '../src/primitives.js';
import { CONSUMPTION_ACTIONS } from '../src/signal-response.js';
import { HOOK_TRIGGERS } from '../src/trigger.js';

/** A frame as plain JSON data (what a client would serialise). */
export type JsonFrame = Record<string, unknown> & { type: ClientFrameType };
export type Path = (string | number)[];

// --- building blocks ---------------------------------------------------------------------------

const SHORT_CHARS = /^[A-Za-z0-9._:-]{1,40}$/;
/** An `Id`: 1–128 of `A-Za-z0-9._:-` (kept short; the limits are probed by the mutations). */
export const idArb = fc.stringMatching(SHORT_CHARS);
const requestIdArb = fc.stringMatching(/^req_[A-Za-z0-9._:-]{1,30}$/);
/** Any text: every Unicode unit, lone surrogates included, as an untrusted peer could send. */
const textArb = (minLength = 0, maxLength = 40) => fc.string({ unit: 'binary', minLength, maxLength });
const shortStringArb = textArb(1, 30);
const timestampArb = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString());

/** Keys of free-form JSON: anything but the prototype-reaching names (those are a mutation of their own). */
const jsonKeyArb = fc.string({ unit: 'binary', minLength: 0, maxLength: 12 }).filter((key) => !FORBIDDEN_KEYS.has(key));
const jsonLeafArb = fc.oneof(
  textArb(0, 24),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const { json: jsonValueArb } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', maxDepth: 5 },
    jsonLeafArb,
    fc.array(tie('json'), { maxLength: 4 }),
    fc.dictionary(jsonKeyArb, tie('json'), { maxKeys: 4, noNullPrototype: true }),
  ),
}));
/** A free-form JSON object (a hook context, details, an input). */
export const jsonObjectArb = fc.dictionary(jsonKeyArb, jsonValueArb, { maxKeys: 6, noNullPrototype: true });
/** Inbox metadata: free-form, except the keys the protocol types. */
const metadataArb = fc.dictionary(
  jsonKeyArb.filter((key) => !['request_id', 'approve', 'feedback', 'modified_input'].includes(key)),
  jsonValueArb,
  { maxKeys: 4, noNullPrototype: true },
);

/** Adds the defined entries of `optional` to `base` (a record with optional keys, without `undefined` values). */
function withOptional<T extends Record<string, unknown>>(base: T, optional: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) out[key] = value;
  return out as T;
}
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

/** A plan: 1–4 steps with distinct ids, each depending only on earlier steps (so never a cycle). */
const planArb = fc
  .record({
    title: textArb(1, 40),
    verification_policy: maybe(shortStringArb),
    steps: fc.array(
      fc.record({
        description: textArb(1, 40),
        status: fc.constantFrom('pending', 'in_progress', 'done', 'failed', 'skipped'),
        tools_expected: fc.array(shortStringArb, { maxLength: 3 }),
        depends: fc.array(fc.nat(), { maxLength: 3 }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  })
  .map(({ title, verification_policy, steps }) =>
    withOptional(
      {
        title,
        steps: steps.map((step, index) => ({
          id: `s${index}`,
          description: step.description,
          dependencies: index === 0 ? [] : [...new Set(step.depends.map((d) => `s${d % index}`))],
          status: step.status,
          tools_expected: step.tools_expected,
        })),
      },
      { verification_policy },
    ),
  );

const targetArb = fc.oneof(fc.constant({ kind: 'operators' }), idArb.map((agent) => ({ kind: 'agent', agent })));

const openRequestArb = fc
  .record({
    request_id: requestIdArb,
    target: targetArb,
    deadline_ms: maybe(fc.integer({ min: 1, max: FRAME_LIMITS.maxRequestDeadlineMs })),
    body: fc.oneof(
      maybe(textArb(0, 40)).map((reason) => ({ type: 'shutdown', payload: withOptional({}, { reason }) })),
      planArb.map((plan) => ({ type: 'plan_approval', payload: { plan } })),
      fc
        .record({
          tool: shortStringArb,
          input: jsonObjectArb,
          input_digest: fc.stringMatching(/^[0-9a-f]{64}$/),
          hook_id: maybe(fc.uuid()),
        })
        .map(({ hook_id, ...payload }) => ({ type: 'tool_approval', payload: withOptional(payload, { hook_id }) })),
    ),
  })
  .map(({ body, deadline_ms, ...rest }) => withOptional({ ...rest, ...body }, { deadline_ms }));

const responseArb = fc
  .record({
    request_id: requestIdArb,
    type: fc.constantFrom('shutdown_response', 'plan_approval_response', 'tool_approval_response'),
    approve: fc.boolean(),
    feedback: maybe(textArb(0, 40)),
    modified_input: maybe(jsonObjectArb),
  })
  // Only an approved tool approval may carry a modified input.
  .map(({ modified_input, ...rest }) =>
    withOptional(rest, { modified_input: rest.type === 'tool_approval_response' && rest.approve ? modified_input : undefined }),
  );

const verificationArb = fc
  .record({
    ok: fc.boolean(),
    failure: fc.constantFrom('test_failure', 'lint_failure', 'type_error', 'build_failure', 'runtime_error', 'timeout'),
    summary: textArb(0, 40),
    suggestion: maybe(textArb(0, 40)),
    details: maybe(
      fc.array(
        fc
          .record({ file: textArb(1, 20), line: fc.integer({ min: 1, max: 1_000_000 }), error: textArb(1, 30), context: maybe(textArb(0, 60)) })
          .map(({ context, ...detail }) => withOptional(detail, { context })),
        { maxLength: 3 },
      ),
    ),
  })
  .map(({ ok, failure, summary, suggestion, details }) =>
    withOptional(
      // A failed result needs a non-blank summary and a failure type; a passed one has type "passed".
      { ok, type: ok ? 'passed' : failure, summary: ok ? summary : `failed: ${summary}` },
      { suggestion, details },
    ),
  );

const eventArb = fc.oneof(
  fc
    .record({
      step_id: maybe(idArb),
      control: fc.constantFrom('step_done', 'replan'),
      reason: maybe(textArb(0, 40)),
      format: fc.constantFrom('structured', 'legacy'),
    })
    .map(({ step_id, reason, ...rest }) => ({ kind: 'control_signal', control_signal: withOptional(rest, { step_id, reason }) })),
  fc
    .record({ plan: planArb, step_id: maybe(idArb), request_id: maybe(requestIdArb) })
    .map(({ plan, step_id, request_id }) => withOptional({ kind: 'plan_progress', plan }, { step_id, request_id })),
  fc
    .record({ result: verificationArb, step_id: maybe(idArb) })
    .map(({ result, step_id }) => withOptional({ kind: 'verification', result }, { step_id })),
  fc
    .record({
      activity: fc.constantFrom('teammate_idle', 'task_created', 'task_completed'),
      team_name: maybe(idArb),
      teammate_name: maybe(idArb),
      task: maybe(fc.record({ id: idArb, subject: maybe(textArb(0, 40)) }).map(({ id, subject }) => withOptional({ id }, { subject }))),
      held: maybe(textArb(0, 40)),
    })
    .map(({ activity, ...rest }) => withOptional({ kind: 'team_activity', activity }, rest)),
);

// --- valid frames ------------------------------------------------------------------------------

/** A valid frame of each client type. */
export const VALID_FRAME_ARBS: { readonly [T in ClientFrameType]: fc.Arbitrary<JsonFrame> } = {
  hello: fc
    .record({
      id: idArb,
      protocol: fc.integer({ min: 1, max: 65_535 }),
      client: fc.record({ name: shortStringArb, version: shortStringArb }),
      resume: maybe(fc.record({ session_id: idArb, last_seq: maybe(fc.nat()) })),
    })
    .map(({ resume, ...rest }) => withOptional({ type: 'hello' as const, ...rest }, { session_id: resume?.session_id, last_seq: resume?.last_seq })),
  hook: fc
    .record({
      id: fc.uuid(),
      trigger: fc.constantFrom(...HOOK_TRIGGERS),
      session_id: maybe(idArb),
      context: jsonObjectArb,
      deadline_ms: maybe(fc.integer({ min: 1, max: FRAME_LIMITS.maxHookDeadlineMs })),
    })
    .map(({ session_id, deadline_ms, ...rest }) => withOptional({ type: 'hook' as const, ...rest }, { session_id, deadline_ms })),
  signal_response: fc
    .record({
      id: idArb,
      signal_id: fc.uuid(),
      consumed_at: timestampArb,
      action: fc.constantFrom(...CONSUMPTION_ACTIONS),
      details: maybe(jsonObjectArb),
    })
    .map(({ id, details, ...response }) => ({ type: 'signal_response' as const, id, response: withOptional(response, { details }) })),
  request: fc.record({ id: idArb, request: openRequestArb }).map((frame) => ({ type: 'request' as const, ...frame })),
  response: fc.record({ id: idArb, response: responseArb }).map((frame) => ({ type: 'response' as const, ...frame })),
  cancel: fc.record({ id: idArb, request_id: requestIdArb }).map((frame) => ({ type: 'cancel' as const, ...frame })),
  send: fc
    .record({
      id: idArb,
      to: idArb,
      content: textArb(0, 80),
      type: fc.constantFrom('message', 'idle_notification'),
      metadata: maybe(metadataArb),
    })
    .map(({ id, metadata, ...message }) => ({ type: 'send' as const, id, message: withOptional(message, { metadata }) })),
  inbox_ack: fc
    .record({ id: idArb, message_ids: fc.array(idArb, { minLength: 1, maxLength: 5 }) })
    .map((frame) => ({ type: 'inbox_ack' as const, ...frame })),
  event: fc.record({ id: idArb, event: eventArb }).map((frame) => ({ type: 'event' as const, ...frame })),
};

/** A valid frame of any client type. */
export const validFrameArb: fc.Arbitrary<JsonFrame> = fc.oneof(...Object.values(VALID_FRAME_ARBS));

// --- where a frame's structure is fixed --------------------------------------------------------

/**
 * Required fields per frame type (beyond `type`), as paths. Each holds a value of one fixed JSON
 * kind, so removing it or giving it another kind always makes the frame invalid.
 */
export const REQUIRED_PATHS: { readonly [T in ClientFrameType]: readonly Path[] } = {
  hello: [['id'], ['protocol'], ['client'], ['client', 'name'], ['client', 'version']],
  hook: [['id'], ['trigger'], ['context']],
  signal_response: [['id'], ['response'], ['response', 'signal_id'], ['response', 'consumed_at'], ['response', 'action']],
  request: [['id'], ['request'], ['request', 'request_id'], ['request', 'type'], ['request', 'target'], ['request', 'payload']],
  response: [['id'], ['response'], ['response', 'request_id'], ['response', 'type'], ['response', 'approve']],
  cancel: [['id'], ['request_id']],
  send: [['id'], ['message'], ['message', 'to'], ['message', 'content'], ['message', 'type']],
  inbox_ack: [['id'], ['message_ids']],
  event: [['id'], ['event'], ['event', 'kind']],
};

/** Objects that are strict (unknown keys refused) in every frame of the type; `[]` is the frame itself. */
export const STRICT_OBJECT_PATHS: { readonly [T in ClientFrameType]: readonly Path[] } = {
  hello: [[], ['client']],
  hook: [[]],
  signal_response: [[], ['response']],
  request: [[], ['request'], ['request', 'target'], ['request', 'payload']],
  response: [[], ['response']],
  cancel: [[]],
  send: [[], ['message']],
  inbox_ack: [[]],
  event: [[], ['event']],
};

// --- tree helpers ------------------------------------------------------------------------------

export function getAt(value: unknown, path: Path): unknown {
  let current = value;
  for (const key of path) current = (current as Record<string | number, unknown>)[key];
  return current;
}

/** A deep copy with the value at `path` replaced (or removed when `next` is {@link REMOVE}). Own `__proto__` keys survive. */
export function setAt(value: unknown, path: Path, next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path as [string | number, ...Path];
  if (Array.isArray(value)) {
    const copy = [...(value as unknown[])];
    if (rest.length === 0 && next === REMOVE) copy.splice(head as number, 1);
    else copy[head as number] = setAt(copy[head as number], rest, next);
    return copy;
  }
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    if (key === String(head) && rest.length === 0 && next === REMOVE) continue;
    defineOwn(copy, key, key === String(head) ? setAt(source[key], rest, next) : source[key]);
  }
  return copy;
}

/** Marks a removal for {@link setAt}. */
export const REMOVE = Symbol('remove');

function ownCopy(source: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) defineOwn(copy, key, source[key]);
  return copy;
}

/** Sets an own enumerable field, also one named `__proto__` (assignment would set the prototype instead). */
export function defineOwn(target: Record<string | number, unknown>, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Every path in a JSON tree (the root included), objects and arrays and leaves. */
export function allPaths(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((item, index) => out.push(...allPaths(item, [...prefix, index])));
  else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) out.push(...allPaths((value as Record<string, unknown>)[key], [...prefix, key]));
  }
  return out;
}

/** The JSON kind of a value: what a type swap must change. */
export type JsonKind = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object';
export function kindOf(value: unknown): JsonKind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as JsonKind;
}

const valueOfKind: Record<JsonKind, fc.Arbitrary<unknown>> = {
  string: textArb(0, 10),
  number: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  boolean: fc.boolean(),
  null: fc.constant(null),
  array: fc.array(jsonLeafArb, { maxLength: 3 }),
  object: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), jsonLeafArb, { maxKeys: 3, noNullPrototype: true }),
};

/** A value of a different JSON kind than `original`. */
export function otherKindArb(original: unknown): fc.Arbitrary<unknown> {
  const kinds = (Object.keys(valueOfKind) as JsonKind[]).filter((kind) => kind !== kindOf(original));
  return fc.constantFrom(...kinds).chain((kind) => valueOfKind[kind]);
}

/** `levels` nested arrays or objects around a leaf. */
export function deepNest(levels: number, shape: 'array' | 'object'): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = shape === 'array' ? [value] : { a: value };
  return value;
}

// --- mutations ---------------------------------------------------------------------------------

/** A mutated frame, the text to send, and the error code the gateway must answer with. */
export interface Mutation {
  readonly kind: string;
  readonly text: string;
  readonly expected: 'E_BAD_FRAME' | 'E_UNKNOWN_TYPE' | 'E_INVALID_FRAME' | 'E_FRAME_TOO_LARGE';
  /** The id the error must carry: the frame's id when it is still intact, else null. */
  readonly id: string | null;
}

/** The frame's id as an error may report it (null when the mutation touched the id). */
function idAfter(frame: JsonFrame, mutated: unknown): string | null {
  const id = (mutated as Record<string, unknown>)['id'];
  return typeof id === 'string' && id === frame['id'] ? id : null;
}

/** The code a frame broken at `path` gets: breaking `type` makes the frame's type unknown. */
function codeFor(path: Path): Mutation['expected'] {
  return path.length === 1 && path[0] === 'type' ? 'E_UNKNOWN_TYPE' : 'E_INVALID_FRAME';
}

function mutation(kind: string, frame: JsonFrame, mutated: unknown, expected: Mutation['expected']): Mutation {
  return { kind, text: JSON.stringify(mutated), expected, id: idAfter(frame, mutated) };
}

/** Removes a required field (or `type`). */
export const dropRequiredField = (frame: JsonFrame): fc.Arbitrary<Mutation> =>
  fc.constantFrom<Path>(['type'], ...REQUIRED_PATHS[frame.type]).map((path) => mutation(`drop ${path.join('.')}`, frame, setAt(frame, path, REMOVE), codeFor(path)));

/** Adds a field no schema knows to an object that is strict. */
export const addUnknownField = (frame: JsonFrame): fc.Arbitrary<Mutation> =>
  fc
    .tuple(fc.constantFrom(...STRICT_OBJECT_PATHS[frame.type]), fc.stringMatching(/^x_[a-z]{1,8}$/), jsonValueArb)
    .map(([path, key, value]) => {
      const target = getAt(frame, path) as Record<string, unknown>;
      const copy = ownCopy(target);
      defineOwn(copy, key, value);
      return mutation(`unknown field ${[...path, key].join('.')}`, frame, setAt(frame, path, copy), 'E_INVALID_FRAME');
    });

/** Gives `type` or a required field a value of another JSON kind. */
export const swapValueKind = (frame: JsonFrame): fc.Arbitrary<Mutation> =>
  fc
    .constantFrom<Path>(['type'], ...REQUIRED_PATHS[frame.type])
    .chain((path) => otherKindArb(getAt(frame, path)).map((value) => ({ path, value })))
    .map(({ path, value }) => mutation(`swap kind of ${path.join('.')}`, frame, setAt(frame, path, value), codeFor(path)));

/**
 * Replaces any value of the frame (inside free-form JSON too) with something no slot accepts:
 * nesting far deeper than allowed, a string longer than any text limit, or an array longer than
 * any array limit.
 */
export const replaceWithOversized = (frame: JsonFrame): fc.Arbitrary<Mutation> =>
  fc
    .tuple(
      fc.constantFrom(...allPaths(frame).filter((path) => path.length > 0)),
      fc.oneof(
        fc.record({ what: fc.constant('deep'), levels: fc.integer({ min: 70, max: 400 }), shape: fc.constantFrom<'array' | 'object'>('array', 'object') }),
        fc.record({ what: fc.constant('long string'), length: fc.integer({ min: LIMITS.maxLongText + 1, max: LIMITS.maxLongText + 4096 }) }),
        fc.record({ what: fc.constant('long array'), length: fc.integer({ min: LIMITS.maxArrayLength + 1, max: LIMITS.maxArrayLength + 50 }) }),
      ),
    )
    .map(([path, spec]) => {
      const value =
        spec.what === 'deep'
          ? deepNest(spec.levels as number, spec.shape as 'array' | 'object')
          : spec.what === 'long string'
            ? 'x'.repeat(spec.length as number)
            : Array.from({ length: spec.length as number }, () => null);
      // Too deep is refused by the shape scan before parsing, whatever the key.
      return mutation(`${spec.what} at ${path.join('.')}`, frame, setAt(frame, path, value), spec.what === 'deep' ? 'E_INVALID_FRAME' : codeFor(path));
    });

/** Adds `__proto__`, `constructor` or `prototype` as an own key of any object of the frame, free-form ones included. */
export const injectForbiddenKey = (frame: JsonFrame): fc.Arbitrary<Mutation> =>
  fc
    .tuple(
      fc.constantFrom(...allPaths(frame).filter((path) => kindOf(getAt(frame, path)) === 'object')),
      fc.constantFrom(...FORBIDDEN_KEYS),
      fc.constantFrom<unknown>({ polluted: true }, { isAdmin: true, toString: 'x' }, 'polluted', [1]),
    )
    .map(([path, key, value]) => {
      const copy = ownCopy(getAt(frame, path) as Record<string, unknown>);
      defineOwn(copy, key, value);
      return mutation(`${key} at ${path.join('.') || '(top)'}`, frame, setAt(frame, path, copy), 'E_INVALID_FRAME');
    });

/** Every mutation of a valid frame that must be refused. */
export const MUTATIONS = [dropRequiredField, addUnknownField, swapValueKind, replaceWithOversized, injectForbiddenKey] as const;

/** A valid frame of any type, mutated by any of {@link MUTATIONS}. */
export const mutatedFrameArb: fc.Arbitrary<Mutation> = fc
  .tuple(validFrameArb, fc.constantFrom(...MUTATIONS))
  .chain(([frame, mutate]) => mutate(frame));

/** Text that is not a JSON object at all: broken JSON, JSON of another kind. */
export const notAnObjectArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc
    .tuple(validFrameArb, fc.nat())
    .map(([frame, cut]) => {
      const text = JSON.stringify(frame);
      return text.slice(0, 1 + (cut % (text.length - 1)));
    })
    .map((text) => ({ kind: 'truncated JSON', text, expected: 'E_BAD_FRAME' as const, id: null })),
  fc
    .oneof(jsonLeafArb, fc.array(jsonValueArb, { maxLength: 3 }))
    .map((value) => ({ kind: 'JSON that is not an object', text: JSON.stringify(value), expected: 'E_BAD_FRAME' as const, id: null })),
);
