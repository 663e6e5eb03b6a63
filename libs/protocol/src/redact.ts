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
 * - in text (optional): credentials embedded in strings — `Bearer …` / `Basic …`, the password of
 *   a `scheme://user:password@host` URL, and `token=` / `api_key=` / `password=` query parameters.
 */

/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';

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
  ]),
  suffixes: Object.freeze(['_token', '_password', '_secret', '_api_key', '_apikey', '_private_key']),
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

/** Credentials inside text: an HTTP auth scheme's credential, a URL's password, a secret query parameter. */
const TEXT_CREDENTIALS: readonly [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi, `$1 ${REDACTED}`],
  [/\b([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]{0,256}:)[^\s@/]{1,1024}@/gi, `$1${REDACTED}@`],
  [/([?&](?:token|access_token|api_key|apikey|password|secret)=)[^&\s#]+/gi, `$1${REDACTED}`],
];

/** Replaces the credentials {@link TEXT_CREDENTIALS} finds in `text`; the same string when there are none. */
export function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of TEXT_CREDENTIALS) out = out.replace(pattern, replacement);
  return out;
}

/** Options of {@link redactSecrets}. */
export interface RedactOptions {
  /**
   * Also redact credentials inside strings ({@link redactText}). Right for logs; off for data an
   * oracle evaluates (a command line must stay what the agent will run).
   * @defaultValue `true`
   */
  credentialsInText?: boolean;
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
  const active = new Set<object>();

  function walk(current: unknown, depth: number): unknown {
    if (typeof current === 'string') return inText ? redactText(current) : current;
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
      const next = isSecretKey(key) && item !== undefined && item !== null ? REDACTED : walk(item, depth + 1);
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
