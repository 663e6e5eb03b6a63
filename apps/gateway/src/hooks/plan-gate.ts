import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { hookToolCall, matchesToolPattern, planGatePolicy, type AgentIdentity, type HookTrigger, type JsonObject, type TeamPolicies } from '@ahp/protocol';
import type { OpenHookInput, RedisConfigStore } from '@ahp/store';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { CONFIG_STORE } from '../store/store.tokens.js';

/**
 * The operators' side of the plan gate (docs/spec/teams.md#plan-gate: a teammate works only on an approved plan):
 * which tools of a team stay open while its plan is pending or after it was rejected, and whether
 * the team requires an approved plan before any tool call. Read from `teams:` of the current
 * hooks configuration, kept in memory and refreshed by the configuration watch, so the hook path
 * reads no extra key for it.
 *
 * The agent's plan state itself (pending, rejected, expired, approved) lives in Redis and is
 * checked by the open-hook script in the step that admits the hook; this service only says which
 * gate applies to one hook (`OpenHookInput.planGate`).
 */
@Injectable()
export class PlanGateService implements OnModuleInit, OnModuleDestroy {
  private teams: TeamPolicies | undefined;
  private version = 0;
  private watch: { stop(): Promise<void> } | undefined;
  private readonly log: JsonLogger;

  constructor(
    @Inject(CONFIG_STORE) private readonly configs: RedisConfigStore,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'plan-gate' });
  }

  async onModuleInit(): Promise<void> {
    await this.reload();
    this.watch = await this.configs.watch((version) => {
      if (version > this.version) void this.reload();
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.watch?.stop();
  }

  /**
   * The gate for one hook: `open` for a tool the agent's team keeps open while planning (and for
   * every trigger but `pre-tool-use`), `require` when its team requires an approved plan, else
   * `gate` (closed while a plan is pending or after one was rejected or expired).
   *
   * The tool is the one the hook names in `context.tool.name`; a hook that names none is gated.
   */
  gateFor(agent: AgentIdentity, trigger: HookTrigger, context: JsonObject): NonNullable<OpenHookInput['planGate']> {
    if (trigger !== 'pre-tool-use') return 'open';
    const policy = planGatePolicy(this.teams, agent);
    const tool = hookToolCall(context)?.name;
    if (tool !== undefined && matchesToolPattern(policy.planningTools, tool)) return 'open';
    return policy.requirePlan ? 'require' : 'gate';
  }

  /** The planning tools of `agent`'s team, for the refusal's details. */
  planningTools(agent: AgentIdentity): readonly string[] {
    return planGatePolicy(this.teams, agent).planningTools;
  }

  private async reload(): Promise<void> {
    try {
      const current = await this.configs.current();
      if (current === null || current.version <= this.version) return;
      this.version = current.version;
      this.teams = current.config.teams;
      this.log.info({ configVersion: current.version, teams: Object.keys(current.config.teams ?? {}).length }, 'plan gate policy loaded');
    } catch (error) {
      // Until it loads, the default applies: every tool call gated by a pending or refused plan.
      this.log.error({ error }, 'loading the plan gate policy failed; the watch retries');
    }
  }
}

