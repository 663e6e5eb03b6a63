#!/usr/bin/env node
/**
 * `npm run check -w @ahp/compose-check`: validates docker-compose.yml and the Dockerfile against
 * the apps' real configuration. Exit 0 when consistent, 1 with one line per problem otherwise.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLUSTER_PROFILE, describeComposeApps } from './app-config.js';
import { checkCompose } from './check-compose.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const composeFile = join(root, 'docker-compose.yml');
console.log(`checking ${composeFile} against the apps' configuration…`);
const apps = describeComposeApps(root);
const problems = checkCompose({
  composeText: readFileSync(composeFile, 'utf8'),
  dockerfileText: readFileSync(join(root, 'Dockerfile'), 'utf8'),
  apps,
  pathExists: (path) => existsSync(join(root, path)),
  clusterProfile: CLUSTER_PROFILE,
});
if (problems.length === 0) {
  console.log(`docker-compose.yml is consistent with ${apps.map((app) => `${app.service} (${app.config.length} variables)`).join(', ')}.`);
} else {
  for (const problem of problems) console.error(`docker-compose.yml:${problem.line ?? '?'}  ${problem.path}: ${problem.message}`);
  process.exit(1);
}
