/**
 * The Redis part of a process's configuration: `REDIS_CLUSTER_NODES`, the list of Redis Cluster
 * nodes a gateway, worker or tool starts from (docs/deploy.md §8). Parsed here, at the config
 * boundary, so every reader gets the same answer and the same message for a bad entry.
 */
import { z } from 'zod';

/** Most root nodes a list may name: a few are enough, the rest of the cluster is discovered. */
export const MAX_CLUSTER_ROOT_NODES = 64;

/** One `host:port` entry: a DNS name or IPv4 address, or an IPv6 address in brackets (`[::1]:7000`). */
export const RedisNodeAddressSchema = z
  .string()
  .trim()
  .transform((entry, ctx) => {
    const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253}):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || !(port >= 1 && port <= 65_535)) {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(entry.slice(0, 100))} is not host:port` });
      return z.NEVER;
    }
    return { host: match[1].replace(/^\[|\]$/g, ''), port };
  });

export type RedisNodeAddress = z.output<typeof RedisNodeAddressSchema>;

/**
 * `host:port,host:port,…` → the distinct addresses in order; blank entries (a trailing comma) are
 * ignored. An entry that does not parse, a duplicate, an empty list or more than
 * {@link MAX_CLUSTER_ROOT_NODES} entries is an issue naming it.
 */
export const RedisClusterNodesSchema = z.string().transform((text, ctx) => {
  const nodes: RedisNodeAddress[] = [];
  for (const raw of text.split(',')) {
    if (raw.trim() === '') continue;
    const parsed = RedisNodeAddressSchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
      return z.NEVER;
    }
    const node = parsed.data;
    if (nodes.some((seen) => seen.host === node.host && seen.port === node.port)) {
      ctx.addIssue({ code: 'custom', message: `${raw.trim()} is listed twice` });
      return z.NEVER;
    }
    nodes.push(node);
  }
  if (nodes.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'names no node (host:port,host:port,…)' });
    return z.NEVER;
  }
  if (nodes.length > MAX_CLUSTER_ROOT_NODES) {
    ctx.addIssue({ code: 'custom', message: `more than ${MAX_CLUSTER_ROOT_NODES} nodes; a few root nodes are enough, the rest is discovered` });
    return z.NEVER;
  }
  return nodes;
});

/**
 * `REDIS_CLUSTER_NODES` as a configuration variable: the text as given (for connectRedis, which
 * parses it again with {@link RedisClusterNodesSchema}), refused with that schema's words.
 */
export const RedisClusterNodesTextSchema = z.string().superRefine((text, ctx) => {
  const parsed = RedisClusterNodesSchema.safeParse(text);
  if (!parsed.success) {
    ctx.addIssue({ code: 'custom', message: `must be host:port,host:port,… (the Redis Cluster nodes): ${parsed.error.issues.map((issue) => issue.message).join('; ')}` });
  }
});
