import { Global, Module } from '@nestjs/common';
import { DrainState } from './drain-state.js';

/** The drain flag, shared by the upgrade, health, presence and the frame router. */
@Global()
@Module({
  providers: [DrainState],
  exports: [DrainState],
})
export class LifecycleModule {}
