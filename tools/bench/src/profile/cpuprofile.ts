/**
 * Reads a V8 CPU profile (`node --cpu-prof` writes one `.cpuprofile` per process at exit) and
 * says where the time went: self time per function and per package, as shares of the time the
 * process was busy (idle samples left out).
 */

/** The parts of the `.cpuprofile` format used here. */
export interface CpuProfile {
  /** When sampling started, µs on the monotonic clock (the one `process.hrtime` reads, on Linux). */
  startTime: number;
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }[];
  /** Node id of each sample. */
  samples: number[];
  /** Microseconds since the previous sample, one per sample. */
  timeDeltas: number[];
}

/** Self time of one function or one package. */
export interface SelfTime {
  name: string;
  selfMs: number;
  /** Share of busy time, percent. */
  percent: number;
}

/** What a profile says. */
export interface ProfileSummary {
  /** Sampled wall time, ms. */
  sampledMs: number;
  /** Time not idle (JavaScript, GC, native, the engine itself), ms. */
  busyMs: number;
  /** The functions with the most self time. */
  topFunctions: SelfTime[];
  /** Self time grouped by package: `zod`, `@redis/client`, `libs/store`, `node (built-in)`, `(garbage collector)`… */
  byPackage: SelfTime[];
}

/** V8's pseudo-frames; `(idle)` is the event loop waiting, the others are real work. */
const IDLE = '(idle)';

/**
 * Where a frame's code comes from: an npm package (scoped names kept whole), a workspace project
 * (`apps/gateway`, `libs/store`), Node's own modules, or V8's pseudo-frames by name.
 */
export function packageOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node (built-in)';
  const path = decodeURIComponent(url.replace(/^file:\/\//, ''));
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [first, second] = path.slice(modules + '/node_modules/'.length).split('/');
    return first?.startsWith('@') && second !== undefined ? `${first}/${second}` : (first ?? path);
  }
  const project = /\/((?:apps|libs|tools)\/[^/]+)\//.exec(path);
  if (project) return project[1] as string;
  return path.slice(path.lastIndexOf('/') + 1) || path;
}

/** A span of the monotonic clock, µs (`process.hrtime.bigint() / 1000n` in any process of this machine). */
export interface ProfileWindow {
  startUs: number;
  endUs: number;
}

/**
 * Summarises a profile; `top` functions and packages are listed. With a `window`, only samples
 * taken inside it count — a process profiled from start to exit would otherwise mix its start-up
 * (module loading, compilation) into the figures of the load it was profiled for.
 */
export function summarizeCpuProfile(profile: CpuProfile, top = 15, window?: ProfileWindow): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByNode = new Map<number, number>();
  let sampledUs = 0;
  let at = profile.startTime;
  profile.samples.forEach((nodeId, index) => {
    // The delta before a sample is attributed to it: the usual approximation at a fixed interval.
    const delta = Math.max(0, profile.timeDeltas[index] ?? 0);
    at += delta;
    if (window !== undefined && (at < window.startUs || at > window.endUs)) return;
    sampledUs += delta;
    selfByNode.set(nodeId, (selfByNode.get(nodeId) ?? 0) + delta);
  });

  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  let idleUs = 0;
  for (const [nodeId, us] of selfByNode) {
    const frame = byId.get(nodeId)?.callFrame;
    if (frame === undefined) continue;
    if (frame.functionName === IDLE) {
      idleUs += us;
      continue;
    }
    const pkg = packageOf(frame.url, frame.functionName);
    const where = frame.url === '' ? '' : ` (${pkg} ${fileName(frame.url)}:${frame.lineNumber + 1})`;
    const key = `${frame.functionName || '(anonymous)'}${where}`;
    functions.set(key, (functions.get(key) ?? 0) + us);
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
  }
  const busyUs = sampledUs - idleUs;
  const rank = (totals: Map<string, number>): SelfTime[] =>
    [...totals]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: Math.round(us / 100) / 10, percent: busyUs > 0 ? Math.round((us / busyUs) * 1000) / 10 : 0 }));
  return {
    sampledMs: Math.round(sampledUs / 1000),
    busyMs: Math.round(busyUs / 1000),
    topFunctions: rank(functions),
    byPackage: rank(packages),
  };
}

/** The file name of a script URL (`node:net` stays whole). */
function fileName(url: string): string {
  return url.startsWith('node:') ? url : url.slice(url.lastIndexOf('/') + 1);
}
