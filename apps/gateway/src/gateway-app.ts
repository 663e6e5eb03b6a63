/**
 * Starts one gateway in this process: the Nest application, its WebSocket adapter and HTTP
 * listener. `main.ts` uses it for the real process, the integration tests to run gateways
 * in-process on port 0.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { activeTracing, operatorRequestTracer } from '@ahp/telemetry';
import { AppModule } from './app.module.js';
import { AgentAuthService, type ReloadResult } from './auth/agent-auth.service.js';
import { CLAUDE_CODE_HOOK_PATH } from './claude-code/claude-code.controller.js';
import { claudeCodeDialect } from './claude-code/claude-code-dialect.js';
import { CODING_AGENT_HOOK_ROUTES } from './coding-agents/coding-agent-hooks.controller.js';
import { HookIntake } from './coding-agents/hook-intake.js';
import type { GatewayConfig } from './config/gateway-config.js';
import { DrainState } from './lifecycle/drain-state.js';
import { MCP_BASE_PATH, McpIntake } from './mcp/mcp-intake.js';
import { ShutdownService } from './shutdown/shutdown.service.js';
import { NestLoggerBridge, type JsonLogger } from './logging/json-logger.js';
import { OperatorAuthService, type OperatorReloadResult } from './operator-api/operator-auth.service.js';
import { AgentWsAdapter } from './ws/agent-ws.adapter.js';

/** A started gateway. */
export interface RunningGateway {
  readonly app: INestApplication;
  /** The port actually listened on (useful with `PORT=0`). */
  readonly port: number;
  readonly gatewayId: string;
  /**
   * Graceful shutdown (drain, goaway, grace period for pending hooks, close sockets with
   * GOING_AWAY, release Redis), then the Nest application closes. Idempotent.
   */
  shutdown(): Promise<void>;
  /** Re-reads the agent tokens file (SIGHUP does this and {@link reloadOperatorTokens}). */
  reloadTokens(): Promise<ReloadResult>;
  /** Re-reads the operator tokens file. */
  reloadOperatorTokens(): Promise<OperatorReloadResult>;
}

/**
 * Creates and starts a gateway for `config`. Start-up failures (Redis refusing the connection
 * setup, an invalid tokens file, a port in use) reject, after whatever was opened is closed again.
 */
export async function startGateway(config: GatewayConfig, logger: JsonLogger): Promise<RunningGateway> {
  const app = await NestFactory.create(AppModule.forRoot(config, logger), {
    logger: new NestLoggerBridge(logger.child({ component: 'nest' })),
    // Nest's default is to abort() the process on a start-up error, which skips our cleanup and
    // the error message naming the bad setting; let the error reach the caller instead.
    abortOnError: false,
  });
  try {
    const auth = app.get(AgentAuthService);
    const drain = app.get(DrainState);
    // The coding agents' routes read their own bodies: token first, no compression, the rate
    // limit, a size cap while streaming, and refusals each agent obeys (HookIntake with the
    // route's dialect). Installed before Nest's JSON parser (registered at listen), which then
    // finds the body read and skips it.
    // Tracing on: each operator request is a span continuing the caller's traceparent (the
    // console's), so a console action and what the gateway did for it are one trace. Off: not installed.
    const tracing = activeTracing();
    if (tracing.enabled) app.use('/v1/operator', operatorRequestTracer(tracing));
    const intake = app.get(HookIntake);
    app.use(`/${CLAUDE_CODE_HOOK_PATH}`, intake.middleware(claudeCodeDialect.refused));
    for (const route of CODING_AGENT_HOOK_ROUTES) app.use(`/${route.path}`, intake.middleware(route.dialect.refused));
    // The MCP gateway reads its own bodies the same way (McpIntake), then answers with the SDK.
    app.use(MCP_BASE_PATH, app.get(McpIntake).middleware);
    app.useWebSocketAdapter(
      new AgentWsAdapter(app, {
        gate: { isDraining: () => drain.draining, authenticate: (request) => auth.authenticateRequest(request) },
        maxPayload: config.maxMessageBytes,
        logger,
      }),
    );
    await app.listen(config.port, config.host);
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }

  const address = app.getHttpServer().address() as AddressInfo;
  let stopping: Promise<void> | undefined;
  return {
    app,
    port: address.port,
    gatewayId: config.gatewayId,
    shutdown() {
      stopping ??= (async () => {
        await app.get(ShutdownService).shutdown();
        await app.close();
      })();
      return stopping;
    },
    reloadTokens: () => app.get(AgentAuthService).reload(),
    reloadOperatorTokens: () => app.get(OperatorAuthService).reload(),
  };
}
