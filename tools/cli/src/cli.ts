#!/usr/bin/env node
/**
 * The `ahp` bin: runs one command and exits with its code (see run-cli.ts, `ahp --help`).
 */
import { runCli } from './run-cli.js';

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
// Writes to pipes and files are synchronous on POSIX; nothing is left to flush.
process.exit(code);
