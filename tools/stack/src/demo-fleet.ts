/**
 * The demo fleet the main job runs by default: scripted agents (no model, no network) that show
 * every part of the control plane in the console within a minute of starting —
 *
 * - `demo-coder` calls tools and submits work in a loop, and gets all four intensities: a blocked
 *   `rm -rf /`, a controlled (rewritten) `git push --force`, a prompt for a 25-file submit and an
 *   aid after the submit; it answers every signal, so the signal log shows responses too;
 * - `demo-planner` submits a plan to the operators and waits in the approval queue; once a person
 *   decides, it works the plan (or revises it) and submits the next one;
 * - `demo-ops` asks to run a risky command that the hooks configuration sends to a person
 *   (`require_approval`): its tool call waits in the queue until someone decides;
 * - `demo-lead` and `demo-helper` form a team: the lead messages the helper, then asks it to shut
 *   down; the helper agrees and disconnects (the fleet shows it go offline).
 *
 * Request ids are derived from `runId` (stable for one data dir) and a round number, so a second
 * start finds the plan still waiting instead of opening another one: a round that was decided
 * while the demo was stopped answers at once and the planner moves on to the next.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import {
  AgentCredentialsFileSchema,
  AgentTokensFileSchema,
  actionsForIntensity,
  type AgentIdentity,
  type AgentTokensFile,
  type JsonObject,
  type Plan,
} from '@ahp/protocol';
import { connect, type AhpClient, type HookResult } from '@ahp/sdk';
import { mintCredentials, tokenDigest, type AgentCredential } from './agent-tokens.js';

/** The agents of the demo fleet; all in team `demo`. */
export const DEMO_FLEET: readonly AgentIdentity[] = Object.freeze([
  { id: 'demo-coder', name: 'Coder (scripted)', team: 'demo', role: 'teammate' },
  { id: 'demo-planner', name: 'Planner (scripted)', team: 'demo', role: 'teammate' },
  { id: 'demo-ops', name: 'Ops runner (scripted)', team: 'demo', role: 'teammate' },
  { id: 'demo-lead', name: 'Lead (scripted)', team: 'demo', role: 'lead' },
  { id: 'demo-helper', name: 'Helper (scripted)', team: 'demo', role: 'teammate' },
]);

/**
 * Makes sure every demo agent has a token: plain tokens in `credentialsFile` (mode 0600, for the
 * demo's own use), their digests in the gateway's `tokensFile`. Agents already there keep their
 * tokens; other agents of the tokens file are left as they are.
 */
export async function ensureDemoCredentials(tokensFile: string, credentialsFile: string): Promise<AgentCredential[]> {
  const known = existsSync(credentialsFile) ? AgentCredentialsFileSchema.parse(JSON.parse(await readFile(credentialsFile, 'utf8'))).agents : [];
  const tokens: AgentTokensFile = existsSync(tokensFile) ? AgentTokensFileSchema.parse(JSON.parse(await readFile(tokensFile, 'utf8'))) : { agents: [] };
  const credentials: AgentCredential[] = [];
  let changed = false;
  for (const agent of DEMO_FLEET) {
    const kept = known.find((entry) => entry.id === agent.id);
    const entry = tokens.agents.find((candidate) => candidate.id === agent.id);
    if (kept !== undefined && entry !== undefined && entry.token_sha256 === tokenDigest(kept.token) && !entry.revoked) {
      credentials.push({ agent, token: kept.token });
      continue;
    }
    const [fresh] = mintCredentials([agent]);
    if (fresh === undefined) throw new Error('no credential minted');
    credentials.push(fresh);
    tokens.agents = [...tokens.agents.filter((candidate) => candidate.id !== agent.id), { ...agent, token_sha256: tokenDigest(fresh.token) }];
    changed = true;
  }
  if (changed) {
    await writeFile(tokensFile, `${JSON.stringify(AgentTokensFileSchema.parse(tokens), null, 2)}\n`, { mode: 0o600 });
    const file = AgentCredentialsFileSchema.parse({ agents: credentials.map(({ agent, token }) => ({ id: agent.id, token })) });
    await writeFile(credentialsFile, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  }
  return credentials;
}

/** Options of {@link startDemoFleet}. */
export interface DemoFleetOptions {
  /** Agent endpoint of a gateway (`ws://…/v1/agents`). */
  url: string;
  credentials: readonly AgentCredential[];
  /** Where a line about what the demo does goes (the main job prints it). */
  log: (line: string) => void;
  /** Stable across restarts of one data dir, so requests are found again instead of duplicated. */
  runId: string;
  /**
   * Pause between two rounds of the coder.
   * @defaultValue `20000`
   */
  coderEveryMs?: number;
  /**
   * How long the lead lets its helper work before asking it to shut down.
   * @defaultValue `15000`
   */
  leadDelayMs?: number;
}

/** A running demo fleet. */
export interface DemoFleet {
  stop(): Promise<void>;
}

/** How long a demo plan waits for a person before it expires. */
const PLAN_DEADLINE_MS = 24 * 3_600_000;

const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** Answers every signal of a hook result with the first action its intensity allows (a cooperative agent). */
async function answerSignals(client: AhpClient, result: HookResult): Promise<void> {
  for (const signal of result.decision.signals) {
    const [action] = actionsForIntensity(signal.header.intensity);
    if (action !== undefined) await client.respond(signal.header.id, action).catch(() => undefined);
  }
}

function describe(result: HookResult): string {
  if (!result.allowed) return `blocked: ${result.block.reason}`;
  return result.decision.intensity === null ? 'allowed' : `allowed with ${result.decision.intensity}`;
}

function demoPlan(round: number): Plan {
  return {
    title: `Demo plan #${round}: add an index to orders`,
    steps: [
      { id: 's1', description: 'Add an index on orders.created_at', dependencies: [], status: 'pending', tools_expected: ['db.migrate'] },
      { id: 's2', description: 'Rewrite the daily report query to use it', dependencies: ['s1'], status: 'pending', tools_expected: ['edit'] },
      { id: 's3', description: 'Run the report tests', dependencies: ['s2'], status: 'pending', tools_expected: ['bash'] },
    ],
  };
}

/** Connects the demo agents and runs their scripts until {@link DemoFleet.stop}. */
export async function startDemoFleet(options: DemoFleetOptions): Promise<DemoFleet> {
  const abort = new AbortController();
  const clients: AhpClient[] = [];
  const tokenOf = (id: string): string => {
    const found = options.credentials.find((credential) => credential.agent.id === id);
    if (found === undefined) throw new Error(`no demo credential for ${id}`);
    return found.token;
  };
  const open = async (id: string): Promise<AhpClient> => {
    const client = await connect({ url: options.url, token: tokenOf(id), client: { name: 'ahp-demo', version: '1' } });
    clients.push(client);
    return client;
  };
  const say = (agent: string, what: string) => options.log(`${agent}: ${what}`);
  const running: Promise<void>[] = [];
  const spawn = (name: string, script: () => Promise<void>) =>
    running.push(
      script().catch((error: unknown) => {
        if (!abort.signal.aborted) say(name, `stopped: ${error instanceof Error ? error.message : String(error)}`);
      }),
    );

  const [coder, planner, ops, lead, helper] = await Promise.all(['demo-coder', 'demo-planner', 'demo-ops', 'demo-lead', 'demo-helper'].map(open));
  if (!coder || !planner || !ops || !lead || !helper) throw new Error('demo agents did not connect');

  spawn('demo-coder', async () => {
    const hook = async (trigger: Parameters<AhpClient['hook']>[0], context: JsonObject, what: string) => {
      const result = await coder.hook(trigger, context);
      await answerSignals(coder, result);
      say('demo-coder', `${what} → ${describe(result)}`);
    };
    let round = 0;
    while (!abort.signal.aborted) {
      round += 1;
      await hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'rm -rf /' } } }, 'bash rm -rf /');
      await hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'git push --force origin main' } } }, 'bash git push --force');
      await hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'npm test' } } }, 'bash npm test');
      const submit = (files: number): JsonObject => ({
        checklist: { items: [{ id: 'chk-001', title: 'tests written', done: true }] },
        files: { changed_count: files },
        tests: { failed_count: 0 },
        coverage: { current: 91 },
      });
      await hook('pre-issue-submit', submit(25), `submit #${round} with 25 files`);
      await hook('pre-issue-submit', submit(6), `submit #${round} split to 6 files`);
      await hook('post-issue-submit', { review: { expected_response_hours: 2 } }, `after submit #${round}`);
      await pause(options.coderEveryMs ?? 20_000, abort.signal);
    }
  });

  spawn('demo-planner', async () => {
    for (let round = 1; !abort.signal.aborted; round += 1) {
      const requestId = `req_demo_${options.runId}_plan_${round}`;
      // A round decided before this start answers at once: skip it quietly and go on to the next.
      let waiting = false;
      const announce = setTimeout(() => {
        waiting = true;
        say('demo-planner', `plan #${round} is waiting for an operator (${requestId}): approve or reject it in the console`);
      }, 1000);
      const decision = await planner.submitPlan(demoPlan(round), { requestId, deadlineMs: PLAN_DEADLINE_MS, approver: 'operators' }).finally(() => clearTimeout(announce));
      if (!waiting) continue;
      say('demo-planner', `plan #${round} ${decision.status}${decision.feedback ? `: ${decision.feedback}` : ''}`);
      if (decision.status === 'approved') {
        const plan = demoPlan(round);
        for (const step of plan.steps) {
          step.status = 'done';
          await planner.report({ kind: 'plan_progress', plan, step_id: step.id, request_id: requestId });
        }
      }
      await pause(60_000, abort.signal);
    }
  });

  spawn('demo-ops', async () => {
    // The hooks configuration sends this command to a person (require_approval); the call waits
    // for the decision, then runs with what was approved.
    const result = await ops.hook(
      'pre-tool-use',
      { tool: { name: 'bash', input: { command: 'kubectl rollout restart deployment/api' } } },
      {
        deadlineMs: 24 * 3_600_000,
        onAwaitingApproval: (wait) => say('demo-ops', `kubectl rollout restart is waiting for an operator (${wait.requestId}, until ${wait.deadline}): decide it in the console`),
      },
    );
    await answerSignals(ops, result);
    say('demo-ops', `kubectl rollout restart → ${describe(result)}`);
  });

  spawn('demo-helper', async () => {
    helper.onRequest('shutdown', (request) => {
      say('demo-helper', `asked to shut down (${request.request_id}); agreeing`);
      return { approve: true };
    });
    for (;;) {
      const next = await helper.idle();
      if (next.kind === 'shutdown') {
        say('demo-helper', 'shut down and disconnected');
        return;
      }
      if (next.kind === 'message') say('demo-helper', `got a message from ${next.message.from}: ${next.message.content}`);
    }
  });

  spawn('demo-lead', async () => {
    await pause(options.leadDelayMs ?? 15_000, abort.signal);
    if (abort.signal.aborted) return;
    await lead.send('demo-helper', 'Thanks for the help today; please wrap up.');
    const decision = await lead.requestShutdown('demo-helper', { requestId: `req_demo_${options.runId}_shutdown_${Date.now()}`, reason: 'end of the demo shift' });
    say('demo-lead', `shutdown of demo-helper ${decision.status}`);
  });

  return {
    async stop() {
      abort.abort();
      await Promise.allSettled(clients.map((client) => client.close()));
      await Promise.allSettled(running);
    },
  };
}
