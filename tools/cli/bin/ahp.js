#!/usr/bin/env node
// The `ahp` command. Claude Code runs `ahp hook claude-code` once per tool call, so that command
// starts from a small entry that loads only what the hook needs (dist/hook-main.js, see
// src/hook-main.ts); every other command loads the full CLI. This file is plain JavaScript and
// committed, so `npm ci` links it as node_modules/.bin/ahp before anything is built.
const [first, second] = process.argv.slice(2);
await import(first === 'hook' && second === 'claude-code' ? '../dist/hook-main.js' : '../dist/cli.js');
