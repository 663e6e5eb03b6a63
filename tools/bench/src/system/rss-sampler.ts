/**
 * The largest resident set a process reaches during a window, sampled from `/proc/<pid>/status`.
 * (`VmHWM` is the peak since the process started, so it cannot tell one window from the next.)
 */
import { readProcessMemory } from './proc-stat.js';

/** A running sampler; `stop` ends it (once) and returns the peak in bytes (0 if never read). */
export interface RssSampler {
  stop(): number;
}

export function startRssSampler(pid: number, everyMs = 50): RssSampler {
  let peak = 0;
  const sample = () => {
    const rss = readProcessMemory(pid)?.rssBytes;
    if (rss !== undefined && Number.isFinite(rss)) peak = Math.max(peak, rss);
  };
  sample();
  let timer: NodeJS.Timeout | undefined = setInterval(sample, everyMs);
  return {
    stop() {
      if (timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
        sample();
      }
      return peak;
    },
  };
}
