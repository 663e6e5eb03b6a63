#!/usr/bin/env node
// The `ahp` command. Coding agents run `ahp hook claude-code|codex|copilot` once per hook, so
// those commands start from a small entry that loads only what the hook needs
// (dist/hook-main.js, see src/hook-main.ts); every other command loads the full CLI. This file is
// plain JavaScript and committed, so `npm ci` links it as node_modules/.bin/ahp before anything is built.
const [first, second] = process.argv.slice(2);
const hook = first === 'hook' && (second === 'claude-code' || second === 'codex' || second === 'copilot');
await import(hook ? '../dist/hook-main.js' : '../dist/cli.js');
