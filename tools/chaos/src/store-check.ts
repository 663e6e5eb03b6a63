/**
 * The last check of a run: for every hook an agent got a decision for, the decision Redis holds
 * must be that same decision. A different one means two decisions existed for one hook (first
 * decision wins was broken, or Redis lost the first one in a restart), and the agent acted on a
 * decision the control plane no longer stands by.
 */
import { connectRedis, createKeys, createRedisStores } from '@ahp/store';
import type { HookRecord } from './hook-ledger.js';
import { decisionFingerprint } from './wire-tap.js';

/** Outcome of {@link checkStoredDecisions}. */
export interface StoreCheck {
  readonly checked: number;
  /** The stored decision differs from the one the agent got. */
  readonly mismatched: number;
  /** No decision stored (expired after its TTL, or lost). */
  readonly missing: number;
  readonly examples: readonly string[];
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };
/** Hooks read from Redis at once; node-redis pipelines them. */
const BATCH = 500;

/** Compares the decision each decided hook got with the one stored under `keyPrefix`. */
export async function checkStoredDecisions(redisUrl: string, keyPrefix: string, hooks: readonly HookRecord[]): Promise<StoreCheck> {
  const redis = await connectRedis({ url: redisUrl, name: 'ahp-chaos-store-check', logger: silent });
  try {
    const store = createRedisStores({ redis, keys: createKeys({ prefix: keyPrefix }) }).hooks;
    const decided = hooks.flatMap((hook) => {
      const first = hook.settles[0];
      return first?.kind === 'decision' ? [{ hook, fingerprint: first.fingerprint }] : [];
    });
    let mismatched = 0;
    let missing = 0;
    const examples: string[] = [];
    for (let i = 0; i < decided.length; i += BATCH) {
      const batch = decided.slice(i, i + BATCH);
      const stored = await Promise.all(batch.map(({ hook }) => store.get(hook.hookId)));
      batch.forEach(({ hook, fingerprint }, j) => {
        const decision = stored[j]?.decision;
        if (decision === undefined) {
          missing += 1;
          return;
        }
        const storedFingerprint = decisionFingerprint(decision);
        if (storedFingerprint === fingerprint) return;
        mismatched += 1;
        if (examples.length < 10) examples.push(`${hook.agent}#${hook.seq} (${hook.hookId}): agent got ${fingerprint}, Redis holds ${storedFingerprint}`);
      });
    }
    return { checked: decided.length, mismatched, missing, examples };
  } finally {
    await redis.quit();
  }
}
