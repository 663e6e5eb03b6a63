/**
 * What every `ahp` command reports with: exit codes, the error that ends a command, and the io it
 * writes to. No imports: the Claude Code command hook loads this and nothing heavier
 * (hook-main.ts), so it must not pull in the Redis client that cli-support.ts needs.
 */
/** Exit codes of `ahp`. */
export const EXIT = {
  ok: 0,
  /** The input is invalid: a configuration with issues, a file that cannot be read, an unknown version. */
  invalid: 1,
  /** The command line is wrong: unknown command or option, missing argument, bad value. */
  usage: 2,
  /** Redis, or the gateway for the commands that call one, cannot be reached (or went away during the command). */
  redis: 3,
} as const;

/** Where the CLI writes and what it reads from its surroundings; injectable for tests. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  /** `isTTY` and `columns` as on process.stderr: long commands draw their progress in place on a terminal (progress.ts). */
  stderr: { write(text: string): unknown; isTTY?: boolean | undefined; columns?: number | undefined };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** An error that ends the command with `exitCode` and prints `message` (no stack: it is for people). */
export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(EXIT.usage, message);
export const invalidInput = (message: string) => new CliError(EXIT.invalid, message);

/** A whole number option value. */
export function wholeNumber(name: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(value.trim())) throw usageError(`${name} must be a whole number, got ${JSON.stringify(value)}`);
  const number = Number(value);
  if (number < min || number > max) throw usageError(`${name} must be between ${min} and ${max}, got ${number}`);
  return number;
}
