/**
 * Which values are secrets, as data, and one pure function that blanks them out of anything about
 * to be logged or queued. Shared by the gateway, the oracle workers and the store, so that every
 * process agrees on what "secret" means — and a new pattern is one line here.
 *
 * Two kinds of secrets are recognised:
 * - by key: a field whose name, normalised (see {@link normalizeKeyName}), is one of
 *   {@link SECRET_KEY_PATTERNS}`.exact` or ends with one of its `suffixes` — `authorization`,
 *   `token`, `GITHUB_TOKEN`, `accessToken`, `password`, `client_secret`, `X-Api-Key`, …
 *   Its whole value (whatever its type) becomes {@link REDACTED}.
 * - in text (optional): credentials embedded in strings — well-known token formats (AWS, GitHub,
 *   Slack, `sk-…`, JWTs…), private-key blocks, `Bearer …` / `Basic …`, the password of a
 *   `scheme://user:password@host` URL, secret query parameters, and `name=value` pairs whose name
 *   is a secret's (see {@link redactText}).
 */

import { LIMITS } from './primitives.js';

/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';

/**
 * A redacted value that still tells values apart: `[redacted:<hex>]`, the hex being a keyed hash
 * of the value (the store's hook queue writes HMAC-SHA-256 with the deployment's redaction key,
 * truncated to 128 bits). Two different secrets get different markers, so a digest of an input
 * with markers (an approval's `input_digest`, a grant's) tells them apart, while the secret itself
 * is neither stored nor shown, and without the key a low-entropy value cannot be guessed from it.
 */
export function redactionMarker(hashHex: string): string {
  if (!/^[0-9a-f]{32,64}$/.test(hashHex)) throw new TypeError('a redaction marker carries 32 to 64 lowercase hex digits');
  return `[redacted:${hashHex}]`;
}

const MARKER = /^\[redacted(?::[0-9a-f]{32,64})?\]$/;

/** Whether `value` is what redaction left in place of a secret: {@link REDACTED} or a {@link redactionMarker}. */
export function isRedactionMarker(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 76 && MARKER.test(value);
}

/**
 * Field names that hold secrets, after {@link normalizeKeyName}: exact names, and suffixes
 * (`*_token` matches `github_token`, `access_token`, `refresh_token`). Digests such as
 * `token_sha256` do not match: a digest of a long random token is not a secret.
 */
export const SECRET_KEY_PATTERNS: Readonly<{ exact: readonly string[]; suffixes: readonly string[] }> = Object.freeze({
  exact: Object.freeze([
    'authorization',
    'proxy_authorization',
    'token',
    'password',
    'passwd',
    'secret',
    'api_key',
    'apikey',
    'cookie',
    'set_cookie',
    'private_key',
    'secret_key',
    'secret_access_key',
  ]),
  suffixes: Object.freeze(['_token', '_password', '_secret', '_api_key', '_apikey', '_private_key', '_secret_key', '_secret_access_key']),
});

const EXACT: ReadonlySet<string> = new Set(SECRET_KEY_PATTERNS.exact);

/**
 * A key as the patterns are written: camelCase split with `_` (`accessToken` → `access_token`),
 * `-`, `.` and spaces as `_`, lower case. So `X-Api-Key`, `xApiKey` and `X_API_KEY` all read
 * `x_api_key`.
 */
export function normalizeKeyName(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[-.\s]+/g, '_');
}

/**
 * Verdicts of {@link isSecretKey} by key. Every hook's context is walked for secrets before it is
 * queued, and the same few field names come back on every hook; normalising each one (three
 * regular expressions) was a measurable share of the gateway's CPU. Bounded: emptied when full.
 */
const secretKeyVerdicts = new Map<string, boolean>();
const MAX_REMEMBERED_KEYS = 4096;

/** Whether a field of this name holds a secret (see {@link SECRET_KEY_PATTERNS}). */
export function isSecretKey(key: string): boolean {
  if (key.length > 256) return false;
  const known = secretKeyVerdicts.get(key);
  if (known !== undefined) return known;
  const name = normalizeKeyName(key);
  const secret = EXACT.has(name) || SECRET_KEY_PATTERNS.suffixes.some((suffix) => name.endsWith(suffix));
  if (secretKeyVerdicts.size >= MAX_REMEMBERED_KEYS) secretKeyVerdicts.clear();
  secretKeyVerdicts.set(key, secret);
  return secret;
}

/**
 * Credentials inside text, each pattern linear in the text it scans: every repetition is bounded,
 * and no two adjacent parts can match the same characters, so a failed match gives up after a
 * bounded number of steps (the text is the agent's: a pattern that backtracks catastrophically
 * would let it stall the gateway). Private-key blocks are found with `indexOf`, not a pattern.
 *
 * - Well-known token formats, replaced whole: AWS access key ids, GitHub, Slack, OpenAI /
 *   Anthropic-style `sk-…`, Stripe, Google API keys, JWTs.
 * - An HTTP auth scheme's credential (`Bearer …`, `Basic …`), a URL's password
 *   (`scheme://user:password@host`), a secret query parameter (`?token=…`).
 * - `name=value` / `name: value` pairs whose name {@link isSecretKey} calls a secret
 *   (`password=…`, `GITHUB_TOKEN=…`, `"api_key": "…"`, `aws_secret_access_key = …`): the value
 *   ({@link redactPairs}, with the URL passwords).
 */
const TOKEN_FORMATS =
  /\b(?:(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}|gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}|xox[abposr]-[A-Za-z0-9-]{10,255}|xapp-\d-[A-Za-z0-9-]{10,255}|sk-[A-Za-z0-9_-]{20,255}|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255}|AIza[0-9A-Za-z_-]{35}|eyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{0,4096})/g;
const AUTH_SCHEME = /\b(Bearer|Basic)\s{1,16}[A-Za-z0-9\-._~+/]{1,8192}={0,2}/gi;
const QUERY_SECRET = /([?&](?:token|access_token|api_key|apikey|password|secret)=)[^&\s#]{1,2048}/gi;
/** Where a `name=value` / `name: value` pair or a URL's `user:password@` may be: scanned for, then checked by hand around it. */
const SEPARATOR = /[:=]/g;

const AUTH_SCHEME_WORD = /^(?:Bearer|Basic)$/i;

const BEGIN_KEY = '-----BEGIN ';
/** The rest of a PEM header line of a private key: `RSA PRIVATE KEY-----`, `OPENSSH PRIVATE KEY-----`, `PRIVATE KEY-----`… */
const PRIVATE_KEY_HEADER = /[A-Z0-9 ]{0,40}PRIVATE KEY-----/y;
const END_KEY = '-----END ';

/**
 * Replaces every PEM private-key block with {@link REDACTED}: from `-----BEGIN … PRIVATE KEY-----`
 * to the end of its `-----END …-----` line, or — no end line — to the end of the text (a key cut
 * short is still a key). One forward pass with `indexOf`.
 */
function redactPrivateKeys(text: string): string {
  let begin = text.indexOf(BEGIN_KEY);
  if (begin < 0) return text;
  let out = '';
  let copied = 0;
  while (begin >= 0) {
    PRIVATE_KEY_HEADER.lastIndex = begin + BEGIN_KEY.length;
    if (!PRIVATE_KEY_HEADER.test(text)) {
      begin = text.indexOf(BEGIN_KEY, begin + BEGIN_KEY.length);
      continue;
    }
    const end = text.indexOf(END_KEY, PRIVATE_KEY_HEADER.lastIndex);
    const close = end < 0 ? -1 : text.indexOf('-----', end + END_KEY.length);
    const stop = close < 0 ? text.length : close + 5;
    out += `${text.slice(copied, begin)}${REDACTED}`;
    copied = stop;
    begin = text.indexOf(BEGIN_KEY, stop);
  }
  return out + text.slice(copied);
}

/** Every credential but the bare token formats (15+ characters) needs one of these characters. */
const SEPARATORS = /[\s@=:]/;

/** Characters of a field name (`GITHUB_TOKEN`, `x-api-key`, `db.password`). */
function isNameChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 45 || code === 46;
}

/** Characters of a value: up to whitespace, a quote, or `& , ;`. */
function isValueChar(code: number): boolean {
  return code > 32 && code !== 34 && code !== 39 && code !== 38 && code !== 44 && code !== 59 && code !== 127;
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}

const MAX_NAME = 64;
const MAX_VALUE = 1024;
const MAX_URL_USER = 256;
const MAX_URL_PASSWORD = 1024;

/**
 * The value of every `name=value` / `name: value` pair (name, optional closing quote, up to 4
 * blanks, `=` or `:`, up to 4 blanks, optional quote, value) whose name {@link isSecretKey} calls a
 * secret, and the password of every `scheme://user:password@host`. Written by hand around each
 * `:` and `=` rather than as regular expressions that try every word of the text: each separator
 * costs at most a bounded look back and forth, so this is linear and about five times cheaper.
 */
function redactPairs(text: string): string {
  let out = '';
  let copied = 0;
  SEPARATOR.lastIndex = 0;
  for (let match = SEPARATOR.exec(text); match !== null; match = SEPARATOR.exec(text)) {
    const at = match.index;
    if (at < copied) continue;
    const span = text.charCodeAt(at) === 58 /* : */ && text.startsWith('//', at + 1) ? urlPassword(text, at) : namedValue(text, at);
    if (span === undefined) continue;
    out += `${text.slice(copied, span[0])}${REDACTED}`;
    copied = span[1];
    SEPARATOR.lastIndex = copied;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** `[start, end)` of the value after the separator at `at` when its name is a secret's. */
function namedValue(text: string, at: number): [number, number] | undefined {
  let nameEnd = at;
  for (let blanks = 0; blanks < 4 && nameEnd > 0 && isBlank(text.charCodeAt(nameEnd - 1)); blanks++) nameEnd--;
  const quote = text.charCodeAt(nameEnd - 1);
  if (quote === 34 || quote === 39) nameEnd--;
  let nameStart = nameEnd;
  while (nameStart > 0 && nameEnd - nameStart < MAX_NAME && isNameChar(text.charCodeAt(nameStart - 1))) nameStart--;
  // No name, or one longer than a field name can be.
  if (nameStart === nameEnd || (nameStart > 0 && isNameChar(text.charCodeAt(nameStart - 1)))) return undefined;
  if (!isSecretKey(text.slice(nameStart, nameEnd))) return undefined;
  let valueStart = at + 1;
  for (let blanks = 0; blanks < 4 && isBlank(text.charCodeAt(valueStart)); blanks++) valueStart++;
  const open = text.charCodeAt(valueStart);
  if (open === 34 || open === 39) valueStart++;
  let valueEnd = valueStart;
  while (valueEnd < text.length && valueEnd - valueStart < MAX_VALUE && isValueChar(text.charCodeAt(valueEnd))) valueEnd++;
  if (valueEnd === valueStart) return undefined;
  const value = text.slice(valueStart, valueEnd);
  // Already blanked, or `Authorization: Bearer …` (its credential was blanked by AUTH_SCHEME after the word).
  if (value === REDACTED || AUTH_SCHEME_WORD.test(value)) return undefined;
  return [valueStart, valueEnd];
}

/** `[start, end)` of the password in `scheme://user:password@`, `at` being the scheme's `:`. */
function urlPassword(text: string, at: number): [number, number] | undefined {
  const userStart = at + 3;
  let colon = userStart;
  while (colon < text.length && colon - userStart <= MAX_URL_USER) {
    const code = text.charCodeAt(colon);
    if (code === 58 /* : */) break;
    if (code <= 32 || code === 47 /* / */ || code === 64 /* @ */) return undefined;
    colon++;
  }
  if (text.charCodeAt(colon) !== 58) return undefined;
  let end = colon + 1;
  while (end < text.length && end - colon <= MAX_URL_PASSWORD) {
    const code = text.charCodeAt(end);
    if (code === 64 /* @ */) return end === colon + 1 ? undefined : [colon + 1, end];
    if (code <= 32 || code === 47 /* / */) return undefined;
    end++;
  }
  return undefined;
}

/**
 * Replaces the credentials found in `text` (see {@link TOKEN_FORMATS} and the patterns beside it)
 * with {@link REDACTED}; the same string when there are none. Linear in the text's length; a few
 * microseconds per KB of ordinary text (docs/signal-log.md, "Redaction").
 */
export function redactText(text: string): string {
  // Without blanks, `@`, `=` or `:` (ids, digests, single words) only a token format can be there.
  if (!SEPARATORS.test(text)) return text.length < 15 ? text : text.replace(TOKEN_FORMATS, REDACTED);
  let out = text.includes(BEGIN_KEY) ? redactPrivateKeys(text) : text;
  out = out.replace(TOKEN_FORMATS, REDACTED);
  out = out.replace(AUTH_SCHEME, `$1 ${REDACTED}`);
  out = out.replace(QUERY_SECRET, `$1${REDACTED}`);
  return redactPairs(out);
}

/** What ends a text cut by {@link clipText}, so a reader sees that something is missing. */
export const TRUNCATED = '…[truncated]';

/**
 * `text` when it has at most `max` characters; else its start, cut so that it ends with
 * {@link TRUNCATED} and has exactly `max` characters (never half of a surrogate pair).
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= TRUNCATED.length) return TRUNCATED.slice(0, Math.max(0, max));
  let end = max - TRUNCATED.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + TRUNCATED;
}

/**
 * {@link redactText} that never returns more than `max` characters. Redaction can make text longer
 * (`token=a` becomes `token=[redacted]`), so text that fitted its schema's limit before could
 * overflow it after; what is stored after redaction must still parse when it is read back.
 */
export function redactTextWithin(text: string, max: number): string {
  return clipText(redactText(text), max);
}

/** The protocol's string limits, smallest first: a string that fitted one of them before redaction is kept within it. */
const STRING_LIMITS = [LIMITS.maxShortString, LIMITS.maxText, LIMITS.maxJsonString, LIMITS.maxLongText].sort((a, b) => a - b);

/** The smallest protocol string limit that `length` fits (the largest when it fits none). */
function limitFor(length: number): number {
  return STRING_LIMITS.find((limit) => length <= limit) ?? LIMITS.maxLongText;
}

/**
 * A copy of free text an agent or operator wrote (an event, a message, a reason, feedback…) with
 * every credential in it redacted, before it is stored or shown: strings anywhere in `value` go
 * through {@link redactText}, fields named like secrets become {@link REDACTED}. The same
 * reference when nothing needed redacting. See docs/signal-log.md, "Redaction", for where it applies.
 *
 * A string that redaction makes longer is kept within the smallest protocol string limit
 * (`LIMITS`) its original fitted, cut with {@link clipText}: the value passed its schema before,
 * and the stored copy must still parse when it is read back. (A field with a narrower limit or a
 * pattern can still be broken by redaction: writers parse the result again.)
 */
export function redactFreeText<T>(value: T): T {
  return redactSecrets(value, { credentialsInText: true, keepWithinLimits: true });
}

/** Options of {@link redactSecrets}. */
export interface RedactOptions {
  /**
   * Also redact credentials inside strings ({@link redactText}). Right for logs; off for data an
   * oracle evaluates (a command line must stay what the agent will run).
   * @defaultValue `true`
   */
  credentialsInText?: boolean;
  /**
   * Cut a string that redaction made longer to the smallest protocol string limit its original
   * fitted (see {@link redactFreeText}).
   * @defaultValue `false`
   */
  keepWithinLimits?: boolean;
  /**
   * What a secret-named field's value becomes; {@link REDACTED} when not given. The hook queue
   * passes a keyed hash ({@link redactionMarker}) so that inputs differing only in a secret
   * still differ once redacted. Not applied to credentials found inside text.
   */
  marker?: (value: unknown) => string;
}

/** Deeper than this, a value is replaced whole: no real log field or hook context nests this far. */
const MAX_DEPTH = 64;

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A copy of `value` with every secret replaced by {@link REDACTED}: fields named like secrets
 * (at any depth of plain objects and arrays) and, unless switched off, credentials inside strings.
 *
 * Pure and safe on anything: the input is never modified; parts without secrets are returned as
 * they are (the same references), so a log line without secrets costs no copy; values that are
 * not plain data (errors, dates, buffers, class instances) are passed through unchanged;
 * cycles become `"[Circular]"`, and nesting deeper than 64 levels is replaced whole.
 */
export function redactSecrets<T>(value: T, options: RedactOptions = {}): T {
  const inText = options.credentialsInText ?? true;
  const fit = options.keepWithinLimits ?? false;
  const marker = options.marker;
  const active = new Set<object>();

  function walk(current: unknown, depth: number): unknown {
    if (typeof current === 'string') {
      if (!inText) return current;
      const redacted = redactText(current);
      return fit && redacted.length > current.length ? clipText(redacted, limitFor(current.length)) : redacted;
    }
    if (current === null || typeof current !== 'object') return current;
    if (depth >= MAX_DEPTH) return REDACTED;
    if (active.has(current)) return '[Circular]';
    if (Array.isArray(current)) {
      active.add(current);
      let copy: unknown[] | undefined;
      current.forEach((item: unknown, index) => {
        const next = walk(item, depth + 1);
        if (next !== item) {
          copy ??= current.slice();
          copy[index] = next;
        }
      });
      active.delete(current);
      return copy ?? current;
    }
    if (!isPlainObject(current)) return current;
    active.add(current);
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(current)) {
      const item = current[key];
      const next = isSecretKey(key) && item !== undefined && item !== null ? (marker === undefined ? REDACTED : marker(item)) : walk(item, depth + 1);
      if (next !== item) {
        copy ??= copyOf(current);
        // defineProperty, not assignment: a key named "__proto__" must stay a plain field.
        Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
      }
    }
    active.delete(current);
    return copy ?? current;
  }

  return walk(value, 0) as T;
}

/** A shallow copy that keeps a `__proto__` key as an own field instead of setting the prototype. */
function copyOf(source: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    Object.defineProperty(copy, key, { value: source[key], enumerable: true, writable: true, configurable: true });
  }
  return copy;
}
