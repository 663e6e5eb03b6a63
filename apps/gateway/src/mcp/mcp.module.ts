import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { HooksModule } from '../hooks/hooks.module.js';
import { McpGatewayService } from './mcp-gateway.service.js';
import { McpIntake } from './mcp-intake.js';

/**
 * The MCP gateway (docs/mcp-gateway.md): MCP clients call upstream MCP servers through
 * `/v1/mcp/<server>`, every tool call decided by the same hook machinery as SDK agents and
 * Claude Code. Off unless `AHP_MCP_CONFIG_FILE` is set.
 */
@Module({
  imports: [AuthModule, HooksModule],
  providers: [McpGatewayService, McpIntake],
})
export class McpModule {}
