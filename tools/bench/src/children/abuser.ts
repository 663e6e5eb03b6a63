/**
 * One abusive client for the noisy-neighbour phase (`node abuser.js '<AbuseSpec JSON>'`): commits
 * its abuse against one gateway until SIGTERM, reconnecting at once whenever it is closed or
 * refused (a hostile client does not follow the close codes), then prints what it saw as one
 * `abuse-report` line on stdout and exits.
 *
 * It paces itself (fixed frames per tick, a cap on what sits unsent in its socket buffer), so on a
 * machine with few cores the figures show what the gateway does with the abuse, not how much CPU
 * the abuser itself takes from the machine.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { WebSocket } from 'ws';
import { ABUSE_REPORT_EVENT, tally, type AbuseMode, type AbuseReport, type AbuseSpec } from '../shared/abuse.js';
import { BENCH_TRIGGER, hookEvent } from '../workload/hook-events.js';
import { announceReady, exitOnSignal } from './ready-line.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as AbuseSpec;
const report: AbuseReport = { mode: spec.mode, sent: 0, connects: 0, replies: {}, closes: {}, httpStatuses: {} };
let stopped = false;
const sockets = new Set<WebSocket>();

const TICK_MS = 50;
/** Unsent bytes the abuser lets pile up in one socket before it waits for the gateway to read. */
const MAX_UNSENT_BYTES = 4 * 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The HTTP bombs' total rate. */
const HTTP_REQUESTS_PER_S = 1000;

/** How each WebSocket abuse builds its frames and how many it sends per tick. */
interface FramePlan {
  framesPerTick: number;
  frame: (n: number) => string;
}

function framePlan(mode: Exclude<AbuseMode, 'http-bombs'>): FramePlan {
  switch (mode) {
    case 'hook-flood':
      // 300 every 50 ms: each burst is over max_in_flight (256), the rate 60× the default limit.
      return {
        framesPerTick: 300,
        frame: (n) => JSON.stringify({ type: 'hook', id: randomUUID(), trigger: BENCH_TRIGGER, context: hookEvent(n).context }),
      };
    case 'deep-frames': {
      // ~900 KB, 450,000 levels: under the 1 MiB frame limit, the shape that cost ~200 ms to parse.
      const deep = `${'['.repeat(450_000)}${']'.repeat(450_000)}`;
      return { framesPerTick: 1, frame: () => deep };
    }
    case 'inbox-ack-flood': {
      // The most ids one frame may carry (1,000), none of them real: 500 frames/s, ~20 MB/s.
      const ids = JSON.stringify(Array.from({ length: 1000 }, (_, index) => `msg-${randomUUID().slice(0, 8)}-${index}`));
      return { framesPerTick: 25, frame: (n) => `{"type":"inbox_ack","id":"ack-${n}","message_ids":${ids}}` };
    }
  }
}

/** One connection: hello, then frames every tick until it is closed or the abuser stops. */
function abuseOneConnection(plan: FramePlan, counter: { n: number }): Promise<void> {
  return new Promise((resolve) => {
    report.connects += 1;
    const ws = new WebSocket(spec.agentUrl, { headers: { authorization: `Bearer ${spec.token}` }, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
    sockets.add(ws);
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      if (timer !== undefined) clearInterval(timer);
      sockets.delete(ws);
      resolve();
    };
    ws.on('unexpected-response', (_request, response) => {
      tally(report.httpStatuses, `upgrade ${String(response.statusCode)}`);
      response.resume();
      ws.terminate();
    });
    ws.on('error', () => undefined); // the close (or the refused upgrade) is what counts
    ws.on('close', (code) => {
      tally(report.closes, String(code));
      finish();
    });
    ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', id: 'hello', protocol: 1, client: { name: `abuser-${spec.mode}`, version: '1' } })));
    ws.on('message', (data) => {
      const text = data.toString();
      const kind = /"type":"(\w+)"/.exec(text)?.[1] ?? 'unreadable';
      tally(report.replies, kind === 'error' ? (/"code":"(\w+)"/.exec(text)?.[1] ?? 'error') : kind);
      if (kind !== 'welcome' || timer !== undefined) return;
      timer = setInterval(() => {
        for (let i = 0; i < plan.framesPerTick && ws.readyState === WebSocket.OPEN && ws.bufferedAmount < MAX_UNSENT_BYTES; i += 1) {
          ws.send(plan.frame(counter.n));
          counter.n += 1;
          report.sent += 1;
        }
      }, TICK_MS);
    });
  });
}

async function abuseWebSocket(mode: Exclude<AbuseMode, 'http-bombs'>): Promise<void> {
  const plan = framePlan(mode);
  const counter = { n: 0 };
  while (!stopped) {
    await abuseOneConnection(plan, counter);
    if (!stopped) await sleep(TICK_MS);
  }
}

/**
 * 64 connections sending ~16 KB gzip bodies that inflate to ~16 MB each, without a token, 1,000 a
 * second in all (16 MB/s on the wire, 16 GB/s if a gateway inflated them). Unpaced, one client
 * process opens connections as fast as the machine lets it, and what that measures is a request
 * flood — a load balancer's per-source connection limit is the answer to it, not the gateway's
 * (docs/reliability.md).
 */
async function abuseHttp(): Promise<void> {
  const json = JSON.stringify({ session_id: 'bomb', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: '0'.repeat(16 * 1024 * 1024) } });
  const body = gzipSync(json, { level: 9 });
  const url = new URL('/v1/hooks/claude-code', spec.httpUrl);
  const one = () =>
    new Promise<void>((resolve) => {
      const outgoing = request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(body.length) },
      });
      outgoing.on('response', (response) => {
        tally(report.httpStatuses, String(response.statusCode));
        response.resume();
        response.on('end', resolve);
        response.on('error', () => resolve());
      });
      outgoing.on('error', () => {
        tally(report.httpStatuses, 'reset');
        resolve();
      });
      report.sent += 1;
      outgoing.end(body);
    });
  const loops = 64;
  const periodMs = (loops * 1000) / HTTP_REQUESTS_PER_S;
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (!stopped) {
        const started = Date.now();
        await one();
        await sleep(Math.max(0, started + periodMs - Date.now()));
      }
    }),
  );
}

exitOnSignal(() => {
  stopped = true;
  for (const ws of sockets) ws.terminate();
  process.stdout.write(`${JSON.stringify({ event: ABUSE_REPORT_EVENT, report })}\n`);
});
announceReady(`abuser-${spec.mode}`);
void (spec.mode === 'http-bombs' ? abuseHttp() : abuseWebSocket(spec.mode));
