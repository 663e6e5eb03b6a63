/**
 * `ahp`: parses the command line (commander, the tree in cli-program.ts), runs one command, and
 * returns its exit code. In-process and injectable (`CliIo`) so that the bin stays a two-line wrapper.
 */
import { CommanderError } from 'commander';
import { CliError, EXIT, type CliIo } from './cli-errors.js';
import { buildProgram } from './cli-program.js';
import { DELEGATED_COMMANDS, runDelegated } from './delegated-commands.js';

export { EXIT, type CliIo } from './cli-errors.js';

/** Commander's ways of ending without an error: help asked for, and shown. */
const HELP_SHOWN = new Set(['commander.helpDisplayed', 'commander.version']);

/** Runs `ahp` with `argv` (without node and the script) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  // Whole programs of their own: everything after the word is theirs, --help included.
  if (first !== undefined && Object.hasOwn(DELEGATED_COMMANDS, first)) return runDelegated(first, rest, io);
  let code: number = EXIT.ok;
  try {
    await buildProgram(io, (result) => (code = result)).parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    // A usage error (already printed by commander as "ahp: …; see … --help"), or help: `ahp` and
    // `ahp config` alone print their help on stderr and exit 2, `--help` on stdout and exit 0.
    if (error instanceof CommanderError) return HELP_SHOWN.has(error.code) ? EXIT.ok : EXIT.usage;
    if (error instanceof CliError) {
      io.stderr.write(`ahp: ${error.message}\n`);
      return error.exitCode;
    }
    // A Redis error after connecting (the connection dropped, a server error).
    const message = error instanceof Error ? error.message : String(error);
    if (/socket|connection|ECONNREFUSED|ECONNRESET|closed|ClientClosed/i.test(`${(error as Error)?.name ?? ''} ${message}`)) {
      io.stderr.write(`ahp: lost the connection to Redis: ${message}\n`);
      return EXIT.redis;
    }
    io.stderr.write(`ahp: ${message}\n`);
    return EXIT.invalid;
  }
}
