/**
 * `npm start -- --redis-cluster [N]`: the one option whose value may be left out (N = 3 masters),
 * which `node:util` parseArgs cannot express; it is taken out of the arguments here first.
 */

/** Masters of the local cluster when `--redis-cluster` is given without a number. */
export const DEFAULT_CLUSTER_MASTERS = 3;

/** The arguments without `--redis-cluster [N]` / `--redis-cluster=N`, and N when it was given. */
export interface RedisClusterFlag {
  rest: string[];
  masters: number | undefined;
}

/** A number of masters the local cluster accepts: 1 (a cluster of one, for tests of the refusal paths) to 16. */
function masters(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isInteger(value) || value < 1 || value > 16) {
    throw new RangeError(`--redis-cluster takes a number of masters from 1 to 16, not ${JSON.stringify(text)}`);
  }
  return value;
}

/**
 * Takes `--redis-cluster`, `--redis-cluster N` and `--redis-cluster=N` out of `argv`. A following
 * argument counts as N only when it is all digits, so `--redis-cluster --no-demo` means 3 masters.
 * @throws RangeError for a number outside 1-16, or the flag given twice.
 */
export function takeRedisClusterFlag(argv: readonly string[]): RedisClusterFlag {
  const rest: string[] = [];
  let found: number | undefined;
  const set = (value: number): void => {
    if (found !== undefined) throw new RangeError('--redis-cluster is given twice');
    found = value;
  };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? '';
    if (arg === '--') {
      rest.push(...argv.slice(index));
      break;
    }
    if (arg.startsWith('--redis-cluster=')) {
      set(masters(arg.slice('--redis-cluster='.length)));
    } else if (arg === '--redis-cluster') {
      const next = argv[index + 1];
      if (next !== undefined && /^\d+$/.test(next)) {
        set(masters(next));
        index += 1;
      } else {
        set(DEFAULT_CLUSTER_MASTERS);
      }
    } else {
      rest.push(arg);
    }
  }
  return { rest, masters: found };
}
