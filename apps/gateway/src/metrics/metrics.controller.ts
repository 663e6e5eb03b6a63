import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { makeError } from '@ahp/protocol';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { bearerTokenMatches } from './metrics-auth.js';

/** Where Prometheus scrapes; outside `/v1/operator`, so operator tokens and their error bodies do not apply. */
export const METRICS_PATH = 'metrics';

/**
 * `GET /metrics`: this gateway's series in the Prometheus text format. Open unless
 * `AHP_METRICS_TOKEN` is set; then a request without `Authorization: Bearer <token>` gets 401
 * with a typed `E_UNAUTHORIZED` body. Served while draining too: a gateway being shut down is
 * exactly when its numbers matter.
 */
@Controller()
export class MetricsController {
  private readonly log: JsonLogger;

  constructor(
    @Inject(GatewayMetrics) private readonly metrics: GatewayMetrics,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'metrics' });
  }

  @Get(METRICS_PATH)
  async scrape(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    const token = this.config.metricsToken;
    if (token !== undefined && !bearerTokenMatches(request.headers.authorization, token)) {
      send(response, 401, 'application/json; charset=utf-8', JSON.stringify({ error: makeError('E_UNAUTHORIZED', 'GET /metrics needs the bearer token set in AHP_METRICS_TOKEN') }), {
        'www-authenticate': 'Bearer realm="ahp-metrics"',
      });
      return;
    }
    try {
      const { contentType, body } = await this.metrics.render();
      send(response, 200, contentType, body);
    } catch (error) {
      this.log.error({ error }, 'rendering the metrics failed');
      send(response, 500, 'application/json; charset=utf-8', JSON.stringify({ error: makeError('E_INTERNAL', 'the metrics could not be rendered') }));
    }
  }
}

function send(response: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  response.end(body);
}
