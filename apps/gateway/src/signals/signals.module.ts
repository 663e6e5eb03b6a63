import { Module } from '@nestjs/common';
import { SignalResponsesService } from './signal-responses.service.js';

/** Agents' answers to signals. */
@Module({
  providers: [SignalResponsesService],
  exports: [SignalResponsesService],
})
export class SignalsModule {}
