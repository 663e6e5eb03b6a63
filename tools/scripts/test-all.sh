#!/usr/bin/env bash
# The one command that runs every check of the project: build, typecheck, lint and all tests
# (unit, integration against a private Redis, end to end), then the workspace-level checks.
set -euo pipefail
# The ops console's browser tests drive Debian's Chromium: bootstrap installs it through apt when missing.
export AHP_NEEDS_BROWSER=1
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$repo_root"

# A lock is only a lock if installing leaves it as committed (checked in CI, on a fresh clone).
if [[ "${CI:-}" == true ]] && git -C "$repo_root" rev-parse --is-inside-work-tree >/dev/null 2>&1 \
  && ! git -C "$repo_root" diff --quiet -- package-lock.json; then
  say "package-lock.json changed during the install; it must be committed as the install leaves it:"
  git -C "$repo_root" diff --stat -- package-lock.json
  exit 1
fi

report_dir="$repo_root/test-results"
rm -rf "$report_dir" && mkdir -p "$report_dir"
export AHP_TEST_REPORT_DIR="$report_dir"

say "building, type-checking, linting and testing every project (Nx, 2 at a time)…"
status=0
# test-cluster: the system tests of the hook path again, on a private Redis Cluster (e2e/vitest.cluster.config.ts).
# Its output is kept too: the tasks that failed are named again at the very end, where CI's log tail shows them.
nx_log="$report_dir/nx-run.log"
npx nx run-many -t build typecheck lint test test-cluster --parallel=2 --outputStyle=stream 2>&1 | tee "$nx_log" || status=$?

say "benchmark smoke run (checks that tools/bench still works; no timing assertions)…"
node tools/bench/dist/cli.js --smoke || status=$?

say "summing up test results from $report_dir"
node tools/scripts/summarize-tests.mjs "$report_dir" || status=$?
if grep -q "Failed tasks:" "$nx_log"; then
  say "Nx tasks that failed (their output is above, and in $nx_log):"
  sed -n '/Failed tasks:/,$p' "$nx_log" | grep -E '^\s*- ' || true
fi
exit "$status"
