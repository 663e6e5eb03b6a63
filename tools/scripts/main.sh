#!/usr/bin/env bash
# The main job: builds the workspace and starts the AHP stack on this machine.
# Redis comes from REDIS_URL when set; otherwise an embedded redis-server with AOF persistence
# keeps its data in .data/redis, so a restart finds pending state again.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$repo_root"

say "building (Nx; cached after the first run)…"
npx nx run-many -t build --outputStyle=static --projects=@ahp/gateway,@ahp/oracle-worker,@ahp/stack,@ahp/cli,@ahp/console
exec node tools/stack/dist/cli.js "$@"
