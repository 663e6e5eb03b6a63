/**
 * `nest` baseline server: the same echo through a NestJS application on the ws adapter
 * (`@nestjs/platform-ws`), in one of two modes (environment variable BENCH_NEST_MODE):
 *
 * - `dispatch`: the framework's way — a `@SubscribeMessage('echo')` handler; Nest parses each
 *   message as `{event, data}`, routes it through its RxJS pipeline and serialises the return.
 * - `raw`: the gateway's way (apps/gateway/src/ws/agent-ws.adapter.ts) — Nest's dispatch switched
 *   off and a plain `message` listener attached in `handleConnection`.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WsAdapter } from '@nestjs/platform-ws';
import { MessageBody, SubscribeMessage, WebSocketGateway, type OnGatewayConnection } from '@nestjs/websockets';
import type { WebSocket } from 'ws';
import { NEST_ECHO_PATH, NEST_MODE_VARIABLE } from '../shared/nest-echo.js';
import { announceReady, exitOnSignal } from './ready-line.js';

@WebSocketGateway({ path: NEST_ECHO_PATH })
class DispatchEchoGateway {
  @SubscribeMessage('echo')
  echo(@MessageBody() data: unknown): { event: string; data: unknown } {
    return { event: 'echo', data };
  }
}

@WebSocketGateway({ path: NEST_ECHO_PATH })
class RawEchoGateway implements OnGatewayConnection {
  handleConnection(ws: WebSocket): void {
    ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
  }
}

/** The adapter with Nest's message dispatch off, as the gateway runs it. */
class RawWsAdapter extends WsAdapter {
  override bindMessageHandlers(): void {}
}

// A Nest module is an empty class whose content is its decorator.
@Module({})
// eslint-disable-next-line @typescript-eslint/no-extraneous-class
class EchoModule {
  static forMode(mode: 'dispatch' | 'raw'): DynamicModule {
    return { module: EchoModule, providers: [mode === 'raw' ? RawEchoGateway : DispatchEchoGateway] };
  }
}

async function main(): Promise<void> {
  const mode = process.env[NEST_MODE_VARIABLE] === 'raw' ? 'raw' : 'dispatch';
  const app = await NestFactory.create(EchoModule.forMode(mode), { logger: false });
  app.useWebSocketAdapter(mode === 'raw' ? new RawWsAdapter(app) : new WsAdapter(app));
  await app.listen(0, '127.0.0.1');
  announceReady(`nest-echo-${mode}`, { port: (app.getHttpServer().address() as AddressInfo).port, mode });
  exitOnSignal(() => app.close());
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
