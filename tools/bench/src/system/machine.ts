/**
 * What the numbers were measured on: the machine and the versions of everything in the path.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

/** The machine, as BENCHMARKS.md describes it. */
export interface MachineInfo {
  cpuModel: string;
  /** Logical CPUs this process may use (what `nproc` prints). */
  nproc: number;
  memoryGiB: number;
  /** `free -h`, as printed (empty when the command is missing). */
  freeH: string;
  kernel: string;
  /** 1/5/15-minute load averages when the run started; other engineers' work shows up here. */
  loadAverageAtStart: number[];
  loadAverageAtEnd?: number[];
}

/** Versions of the runtime and of the packages on the measured path. */
export interface Versions {
  node: string;
  redisServer: string;
  '@nestjs/core': string;
  '@nestjs/platform-ws': string;
  bullmq: string;
  ws: string;
  redis: string;
}

export function describeMachine(): MachineInfo {
  let freeH = '';
  try {
    freeH = execFileSync('free', ['-h'], { encoding: 'utf8' }).trimEnd();
  } catch {
    // `free` is part of procps, which minimal images may lack; the total below still says enough.
  }
  return {
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    nproc: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    freeH,
    kernel: `${os.type()} ${os.release()}`,
    loadAverageAtStart: loadAverage(),
  };
}

/** 1/5/15-minute load averages, two decimals. */
export function loadAverage(): number[] {
  return os.loadavg().map((value) => Math.round(value * 100) / 100);
}

/** Versions from the workspace's node_modules; `redisServer` comes from the running server. */
export function collectVersions(workspaceRoot: string, redisServer: string | undefined): Versions {
  const version = (name: string) => {
    try {
      return (JSON.parse(readFileSync(join(workspaceRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      return 'unknown';
    }
  };
  return {
    node: process.version,
    redisServer: redisServer ?? 'unknown',
    '@nestjs/core': version('@nestjs/core'),
    '@nestjs/platform-ws': version('@nestjs/platform-ws'),
    bullmq: version('bullmq'),
    ws: version('ws'),
    redis: version('redis'),
  };
}
