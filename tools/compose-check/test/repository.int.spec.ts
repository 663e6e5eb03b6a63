// Runs the real check on this repository's docker-compose.yml and Dockerfile, with the
// configuration the built gateway and worker describe (`main.js --describe-config`).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLUSTER_PROFILE, describeComposeApps } from '../src/app-config.js';
import { checkCompose } from '../src/check-compose.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('docker-compose.yml of this repository', () => {
  // Starts both built apps once each (--describe-config); slow on a loaded machine, not a timing check.
  it('is consistent with the apps it runs', { timeout: 60_000 }, () => {
    const apps = describeComposeApps(root);
    for (const app of apps) expect(app.config.map((variable) => variable.name)).toEqual(expect.arrayContaining(['REDIS_URL', 'REDIS_CLUSTER_NODES']));
    const problems = checkCompose({
      composeText: readFileSync(join(root, 'docker-compose.yml'), 'utf8'),
      dockerfileText: readFileSync(join(root, 'Dockerfile'), 'utf8'),
      apps,
      pathExists: (path) => existsSync(join(root, path)),
      clusterProfile: CLUSTER_PROFILE,
    });
    expect(problems).toEqual([]);
  });
});
