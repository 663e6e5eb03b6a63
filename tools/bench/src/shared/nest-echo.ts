/**
 * How the NestJS echo server is reached and told its mode; shared by the server and the phase
 * that starts it (importing the server itself would start it).
 */

/** The path both modes serve. */
export const NEST_ECHO_PATH = '/echo';

/** Environment variable naming the mode: `dispatch` (default) or `raw`. */
export const NEST_MODE_VARIABLE = 'BENCH_NEST_MODE';
