import { Module } from '@nestjs/common';
import { PresenceService } from './presence.service.js';

/** Agent and gateway presence in Redis. */
@Module({
  providers: [PresenceService],
  exports: [PresenceService],
})
export class PresenceModule {}
