import { describe, expect, it } from 'vitest';
import { GatewayConfigError, describeConfig, parseGatewayConfig } from './gateway-config.js';

const REQUIRED = { REDIS_URL: 'redis://127.0.0.1:1', AHP_AGENT_TOKENS_FILE: '/etc/ahp/agents.json' };

function refusedVariables(env: Record<string, string>): string[] {
  try {
    parseGatewayConfig({ ...REQUIRED, ...env });
  } catch (error) {
    if (error instanceof GatewayConfigError) return error.issues.map((issue) => issue.variable);
    throw error;
  }
  return [];
}

describe('rate limit configuration', () => {
  it('has generous documented defaults: a reconnect re-sending every in-flight hook stays inside the agent burst', () => {
    const config = parseGatewayConfig(REQUIRED);
    expect(config).toMatchObject({ agentRatePerSecond: 100, agentBurst: 500, agentRateLease: 16, operatorRatePerSecond: 50, operatorBurst: 200 });
    expect(config.agentBurst).toBeGreaterThanOrEqual(config.maxInFlight);
  });

  it('reads decimals, 0 (off) and bursts', () => {
    const config = parseGatewayConfig({
      ...REQUIRED,
      AHP_AGENT_RATE_PER_S: '0.5',
      AHP_AGENT_BURST: '3',
      AHP_OPERATOR_RATE_PER_S: '0',
      AHP_OPERATOR_BURST: ' 7 ',
      AHP_AGENT_RATE_LEASE: '1',
    });
    expect(config).toMatchObject({ agentRatePerSecond: 0.5, agentBurst: 3, agentRateLease: 1, operatorRatePerSecond: 0, operatorBurst: 7 });
  });

  it('limits connections and new sessions per agent by default, and reads 0 as off', () => {
    expect(parseGatewayConfig(REQUIRED)).toMatchObject({ agentMaxConnections: 32, agentNewSessionsPerMinute: 60, agentNewSessionBurst: 60 });
    const off = parseGatewayConfig({ ...REQUIRED, AHP_AGENT_MAX_CONNECTIONS: '0', AHP_AGENT_NEW_SESSIONS_PER_MIN: '0', AHP_AGENT_NEW_SESSION_BURST: '5' });
    expect(off).toMatchObject({ agentMaxConnections: 0, agentNewSessionsPerMinute: 0, agentNewSessionBurst: 5 });
    expect(refusedVariables({ AHP_AGENT_MAX_CONNECTIONS: '-1' })).toEqual(['AHP_AGENT_MAX_CONNECTIONS']);
    expect(refusedVariables({ AHP_AGENT_NEW_SESSIONS_PER_MIN: 'many' })).toEqual(['AHP_AGENT_NEW_SESSIONS_PER_MIN']);
    expect(refusedVariables({ AHP_AGENT_NEW_SESSION_BURST: '0' })).toEqual(['AHP_AGENT_NEW_SESSION_BURST']);
  });

  it('names the variable of a bad value', () => {
    expect(refusedVariables({ AHP_AGENT_RATE_PER_S: '-1' })).toEqual(['AHP_AGENT_RATE_PER_S']);
    expect(refusedVariables({ AHP_AGENT_RATE_PER_S: 'fast' })).toEqual(['AHP_AGENT_RATE_PER_S']);
    expect(refusedVariables({ AHP_OPERATOR_RATE_PER_S: '2000000' })).toEqual(['AHP_OPERATOR_RATE_PER_S']);
    expect(refusedVariables({ AHP_AGENT_BURST: '0' })).toEqual(['AHP_AGENT_BURST']);
    expect(refusedVariables({ AHP_OPERATOR_BURST: '1.5' })).toEqual(['AHP_OPERATOR_BURST']);
    expect(refusedVariables({ AHP_AGENT_RATE_LEASE: '0' })).toEqual(['AHP_AGENT_RATE_LEASE']);
  });

  it('describes the four variables with their defaults (for --describe-config and compose-check)', () => {
    const described = Object.fromEntries(describeConfig().map((variable) => [variable.name, variable]));
    expect(described['AHP_AGENT_RATE_PER_S']).toMatchObject({ required: false, default: '100' });
    expect(described['AHP_AGENT_BURST']).toMatchObject({ required: false, default: '500' });
    expect(described['AHP_OPERATOR_RATE_PER_S']).toMatchObject({ required: false, default: '50' });
    expect(described['AHP_OPERATOR_BURST']).toMatchObject({ required: false, default: '200' });
  });
});
