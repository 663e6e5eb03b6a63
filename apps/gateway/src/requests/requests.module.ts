import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { RequestSweeper } from './request-sweeper.service.js';
import { RequestsService } from './requests.service.js';

/** Requests (shutdown, plan and tool approvals): opening, answering, operator decisions, expiry. */
@Module({
  imports: [AuthModule],
  providers: [RequestsService, RequestSweeper],
  exports: [RequestsService, RequestSweeper],
})
export class RequestsModule {}
