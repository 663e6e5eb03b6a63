import { Module, type DynamicModule } from '@nestjs/common';
import { AgentsModule } from './agents/agents.module.js';
import { AuditModule } from './audit/audit.module.js';
import { ConnectionsModule } from './connections/connections.module.js';
import { AuthModule } from './auth/auth.module.js';
import { ClaudeCodeModule } from './claude-code/claude-code.module.js';
import { CodingAgentsModule } from './coding-agents/coding-agents.module.js';
import { ConfigApiModule } from './config-api/config-api.module.js';
import { ConfigReplayModule } from './config-replay/config-replay.module.js';
import { ConfigModule } from './config/config.module.js';
import { ShadowApiModule } from './config-shadow/shadow-api.module.js';
import type { GatewayConfig } from './config/gateway-config.js';
import { EventsModule } from './events/events.module.js';
import { FeedModule } from './feed/feed.module.js';
import { FleetModule } from './fleet/fleet.module.js';
import { HealthModule } from './health/health.module.js';
import { HooksModule } from './hooks/hooks.module.js';
import { InboxModule } from './inbox/inbox.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { ShutdownService } from './shutdown/shutdown.service.js';
import type { JsonLogger } from './logging/json-logger.js';
import { McpModule } from './mcp/mcp.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { GrantsModule } from './grants/grants.module.js';
import { NotificationsModule } from './notifications/notifications.module.js';
import { EnforcementModule } from './enforcement/enforcement.module.js';
import { OperatorSignalsModule } from './operator-signals/operator-signals.module.js';
import { OperatorsModule } from './operators/operators.module.js';
import { PresenceModule } from './presence/presence.module.js';
import { RateLimitModule } from './rate-limit/rate-limit.module.js';
import { SessionsModule } from './sessions/sessions.module.js';
import { RequestsModule } from './requests/requests.module.js';
import { SignalsApiModule } from './signals-api/signals-api.module.js';
import { StoreModule } from './store/store.module.js';

/** The gateway application, for one parsed configuration. */
@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig, logger: JsonLogger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config, logger),
        EventsModule,
        StoreModule,
        RateLimitModule,
        SessionsModule,
        LifecycleModule,
        ConnectionsModule,
        AuthModule,
        HooksModule,
        PresenceModule,
        RequestsModule,
        InboxModule,
        FeedModule,
        AgentsModule,
        OperatorsModule,
        OperatorSignalsModule,
        EnforcementModule,
        AuditModule,
        FleetModule,
        // Before ConfigApiModule: its `GET config/:version` must not take `config/shadow`.
        ShadowApiModule,
        ConfigApiModule,
        ConfigReplayModule,
        SignalsApiModule,
        GrantsModule,
        NotificationsModule,
        ClaudeCodeModule,
        CodingAgentsModule,
        McpModule,
        HealthModule,
        MetricsModule,
      ],
      providers: [ShutdownService],
    };
  }
}
