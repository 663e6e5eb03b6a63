/**
 * Running the library's Lua scripts, and decoding what they and Redis return.
 */
import { createHash } from 'node:crypto';
import { reportIssues, type SchemaIssue } from '@ahp/protocol';
import { StoreDataError, type StoreDataIssue } from './errors.js';
import type { RedisClient } from './redis-client.js';

/**
 * One Lua script, run by SHA: `EVALSHA`, and on `NOSCRIPT` (first use, or the server restarted
 * and lost its script cache) `EVAL`, which caches it again. No load step at start-up, so a
 * script is never "not loaded" after a failover or restart.
 */
export class LuaScript {
  readonly sha: string;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    const options = { keys: [...keys], arguments: args.map(String) };
    try {
      return await client.evalSha(this.sha, options);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
        return await client.eval(this.source, options);
      }
      throw error;
    }
  }
}

/** A script reply that is not what its header promises: a bug or a foreign script under our SHA, reported with the key. */
export function badReply(key: string, script: string, reply: unknown): StoreDataError {
  return new StoreDataError(key, `unexpected reply from ${script}: ${JSON.stringify(reply)?.slice(0, 200)}`, { field: 'reply' });
}

/** The elements of an array reply, or a {@link StoreDataError}. */
export function arrayReply(reply: unknown, key: string, script: string): unknown[] {
  if (!Array.isArray(reply)) throw badReply(key, script, reply);
  return reply;
}

/** A string element of a script reply, or a {@link StoreDataError}. */
export function stringAt(items: readonly unknown[], index: number, key: string, script: string): string {
  const value = items[index];
  if (typeof value !== 'string') throw badReply(key, script, items);
  return value;
}

/** `HGETALL` as a script returns it (`[field, value, …]`) to a record. */
export function pairsToRecord(reply: unknown, key: string, script: string): Record<string, string> {
  const items = arrayReply(reply, key, script);
  const record: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 0; i + 1 < items.length; i += 2) {
    const field = items[i];
    const value = items[i + 1];
    if (typeof field !== 'string' || typeof value !== 'string') throw badReply(key, script, reply);
    record[field] = value;
  }
  return record;
}

/** The result shape every zod schema's `safeParse` has; kept structural so this library needs no direct zod import. */
interface SafeParser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly SchemaIssue[] } };
}

/**
 * Parses a value read back from Redis with its protocol schema.
 * @throws StoreDataError naming the key (and field) and listing the schema's issues.
 */
export function parseStored<T>(schema: SafeParser<T>, value: unknown, key: string, field?: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues: StoreDataIssue[] = reportIssues(result.error.issues);
  const summary = issues.map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`)).join('; ');
  throw new StoreDataError(key, `does not match its schema: ${summary}`, { ...(field === undefined ? {} : { field }), issues });
}

/**
 * `JSON.parse` of a stored string.
 * @throws StoreDataError naming the key and field when it is not JSON.
 */
export function parseStoredJson(raw: string, key: string, field: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw new StoreDataError(key, 'is not valid JSON', { field, cause: error });
  }
}

/** A stored epoch-ms field as a number; anything else is passed on unchanged for the schema to reject. */
export function epochField(raw: string | undefined): unknown {
  return raw !== undefined && /^\d{1,16}$/.test(raw) ? Number(raw) : raw;
}
