/**
 * The built-in patterns were rewritten for RE2 (no lookaround). The JavaScript originals are kept
 * here only as the reference they must agree with, on generated shell lines built from the
 * tokens those patterns care about.
 */
import { describe, expect, it } from 'vitest';
import { GIT_FORCE_PUSH, RM_ROOT_OR_HOME, WIPE_DEVICE } from '../defaults.js';
import { random } from '../../test/helpers.js';
import { compileLinearPattern } from './linear-pattern.js';

const ORIGINAL_RM = /(?:^|[\s;&|(`])rm\s+(?=(?:[^;&|\n]*\s)?(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)(?:\s|$))(?:[^;&|\n]*\s)?["']?(?:\/+\*?|~\/?\*?|\$\{?HOME\}?\/?\*?)["']?(?=$|[\s;&|)`])/;
const ORIGINAL_WIPE = /(?:^|[\s;&|(`])mkfs(?:\.[a-z0-9]+)?\s|(?:^|[\s;&|(`])dd\s[^;&|\n]*\bof=\/dev\/(?!null\b|zero\b|stdout\b|stderr\b|tty\b)/;
const ORIGINAL_PUSH = /(\bgit\s(?:[^;&|\n]*?\s)?push\b(?:[^;&|\n]*?\s)?)(?:--force|-f)(?=$|[\s;&|)`])/g;

const COMMANDS = ['rm', 'rm', 'sudo rm', 'dd', 'dd', 'git push', 'git push', 'git -C x push', 'mkfs', 'mkfs.ext4', '(rm', '`rm', 'x'];
const ARGS = [
  '-rf', '-r', '-R', '-fr', '-f', '--recursive', '/', '/*', '//', '~', '~/', '~/*', '$HOME', '${HOME}', '"${HOME}"/*', "'/'", '"~"', './build', 'x',
  'if=/dev/zero', 'of=/dev/null', 'of=/dev/nul', 'of=/dev/nullx', 'of=/dev/sda', 'of=/dev/zero', 'of=/dev/zer', 'of=/dev/stdout', 'of=/dev/stdo',
  'of=/dev/stderr', 'of=/dev/stde', 'of=/dev/tty', 'of=/dev/tt', 'of=/dev/s', 'of=/dev/t', 'of=/dev/', 'of=/dev/null/x', 'bs=1M', '--force', '-f',
  '--force-with-lease', 'origin', 'main', ')', '`', '"', "'",
];
const BLANKS = [' ', ' ', ' ', '  ', '\t', '', '\n'];
const SEPARATORS = ['; ', ' && ', ' | ', '\n', ' ', ';', '&'];

function lines(count: number, start: number): string[] {
  const next = random(start);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const command = () => {
    let text = pick(COMMANDS);
    const args = Math.floor(next() * 5);
    for (let i = 0; i < args; i += 1) text += pick(BLANKS) + pick(ARGS);
    return text;
  };
  return Array.from({ length: count }, () => {
    let line = command();
    while (next() < 0.3) line += pick(SEPARATORS) + command();
    return line;
  });
}

describe('the built-in patterns on RE2 decide as their lookaround originals did', () => {
  const inputs = [
    ...lines(20_000, 27),
    'rm -rf /', 'rm / -rf', 'rm -rf ~', 'rm -r "${HOME}"/*', 'sudo rm -rf --no-preserve-root /', 'rm -rf ./build', 'echo x; rm -rf ~/',
    'dd if=/dev/zero of=/dev/sda', 'dd if=x of=/dev/null', 'dd of=/dev/nullx', 'dd of=/dev/', 'mkfs.ext4 /dev/sdb1', 'git push --force origin main',
    'git push -f', 'git push --force-with-lease', 'git push origin -f; git push --force',
  ];

  it('rm-root-or-home', () => {
    const pattern = compileLinearPattern(RM_ROOT_OR_HOME);
    const differ = inputs.filter((input) => pattern.test(input) !== ORIGINAL_RM.test(input));
    expect(differ.slice(0, 5)).toEqual([]);
    expect(inputs.filter((input) => ORIGINAL_RM.test(input)).length).toBeGreaterThan(100);
  });

  it('wipe-block-device', () => {
    const pattern = compileLinearPattern(WIPE_DEVICE);
    const differ = inputs.filter((input) => pattern.test(input) !== ORIGINAL_WIPE.test(input));
    expect(differ.slice(0, 5)).toEqual([]);
    expect(inputs.filter((input) => ORIGINAL_WIPE.test(input)).length).toBeGreaterThan(100);
  });

  it('force-push-with-lease rewrites the same text', () => {
    const pattern = compileLinearPattern(GIT_FORCE_PUSH);
    const differ = inputs.filter((input) => pattern.replaceAll(input, '$1--force-with-lease$2') !== input.replace(ORIGINAL_PUSH, '$1--force-with-lease'));
    expect(differ.slice(0, 5)).toEqual([]);
    expect(inputs.filter((input) => input.replace(ORIGINAL_PUSH, '$1--force-with-lease') !== input).length).toBeGreaterThan(100);
  });
});
