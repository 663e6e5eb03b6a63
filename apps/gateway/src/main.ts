/**
 * The gateway process: parse the configuration, start, print the ready line, and handle signals
 * (SIGTERM/SIGINT: graceful shutdown then exit 0; a second one exits at once; SIGHUP: reload the
 * agent and operator tokens files).
 *
 * stdout carries exactly one line, `{"event":"ready",...}`, once the gateway accepts agents;
 * start scripts and tests wait for it. Logs go to stderr.
 *
 * `--describe-config` prints the variables it reads as JSON (name, required, default,
 * description) and exits 0 without connecting anywhere; tools/compose-check uses it.
 */
import { GatewayConfigError, describeConfig, parseGatewayConfig, type GatewayConfig } from './config/gateway-config.js';
import { startGateway } from './gateway-app.js';
import { JsonLogger } from './logging/json-logger.js';
import { TracingConfigError, activeTracing, startTracing, tracingConfigFromEnv, type TracingConfig } from '@ahp/telemetry';

async function main(): Promise<void> {
  if (process.argv.includes('--describe-config')) {
    process.stdout.write(`${JSON.stringify(describeConfig())}\n`);
    process.exit(0);
  }
  let config: GatewayConfig;
  try {
    config = parseGatewayConfig(process.env);
  } catch (error) {
    const issues = error instanceof GatewayConfigError ? error.issues : undefined;
    new JsonLogger({ bindings: { service: 'gateway' } }).error({ issues }, error instanceof Error ? error.message : String(error));
    process.exit(1);
  }

  // OpenTelemetry tracing as the standard OTEL_* variables ask; off (nothing loaded) when none is set.
  let tracing: TracingConfig;
  try {
    tracing = tracingConfigFromEnv(process.env, 'ahp-gateway');
  } catch (error) {
    new JsonLogger({ bindings: { service: 'gateway' } }).error({ variable: error instanceof TracingConfigError ? error.variable : undefined }, error instanceof Error ? error.message : String(error));
    process.exit(1);
  }

  const logger = new JsonLogger({ level: config.logLevel, bindings: { service: 'gateway', gatewayId: config.gatewayId } });
  // Before Nest builds anything: the hook queue and the hook spans take the tracing at construction.
  if ((await startTracing(tracing)).enabled) logger.info({}, 'OpenTelemetry tracing on');
  process.on('unhandledRejection', (reason) => logger.error({ error: reason }, 'unhandled promise rejection'));

  let gateway: Awaited<ReturnType<typeof startGateway>>;
  try {
    gateway = await startGateway(config, logger);
  } catch (error) {
    logger.error({ error }, error instanceof Error ? `gateway failed to start: ${error.message}` : 'gateway failed to start');
    process.exit(1);
  }

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal during shutdown; exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    gateway
      .shutdown()
      // A collector that is down must not turn a clean stop into a failed one.
      .then(() => activeTracing().shutdown().catch(() => undefined))
      .then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', () => {
    void gateway.reloadTokens();
    void gateway.reloadOperatorTokens();
  });

  // Announced only once the signal handlers are in place: a supervisor may send SIGTERM the
  // moment it reads this line, and it must get the graceful drain, not the default kill.
  process.stdout.write(
    `${JSON.stringify({ event: 'ready', service: 'gateway', gateway_id: gateway.gatewayId, port: gateway.port, pid: process.pid })}\n`,
  );
  logger.info({ host: config.host, port: gateway.port }, 'gateway ready');
}

void main();
