#!/usr/bin/env bash
# Makes a fresh Debian machine (root, Node.js 20 and npm only) ready to build and run AHP:
# system packages through apt when they are missing, then the npm workspace.
# Sourced by main.sh and test-all.sh; safe to run again (each step is skipped when already done).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
say() { printf '\033[1m[ahp]\033[0m %s\n' "$*"; }

require_node() {
  local major minor
  IFS=. read -r major minor _ < <(node -p 'process.versions.node')
  if (( major < 20 || (major == 20 && minor < 19) )); then
    say "Node.js >= 20.19 is required (found $(node -v))."
    exit 1
  fi
}

apt_updated=0
# ensure_apt <command-to-look-for> <debian-package>
ensure_apt() {
  local cmd="$1" pkg="$2"
  if command -v "$cmd" >/dev/null 2>&1 || [[ -x "/usr/bin/$cmd" || -x "/usr/sbin/$cmd" ]]; then
    return 0
  fi
  if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    say "$pkg is missing and cannot be installed here (needs root and apt-get)."
    say "Install it yourself (Debian: sudo apt-get install $pkg), or set REDIS_URL to a Redis you run."
    exit 1
  fi
  if (( apt_updated == 0 )); then
    say "apt-get update (once, to install $pkg)…"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    apt_updated=1
  fi
  say "installing $pkg with apt-get…"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null
}

install_npm_packages() {
  cd "$repo_root"
  # npm writes node_modules/.package-lock.json on every install; if it is newer than the
  # lockfile, the tree matches and there is nothing to do.
  if [[ -f node_modules/.package-lock.json && node_modules/.package-lock.json -nt package-lock.json ]]; then
    return 0
  fi
  # `npm ci`: exactly the tree package-lock.json describes, and the lockfile is never rewritten.
  # The lockfile lists the optional prebuilt binaries of every platform (@rollup/rollup-*,
  # @swc/core-*, @nx/nx-*), whichever platform it was written on; one that lacked some made npm
  # install add them (a changed lock after every fresh install) and npm ci refuse it. To change a
  # dependency: `npm install <pkg>@<range>` and commit package.json with package-lock.json.
  say "installing npm packages (npm ci, exactly as package-lock.json locks them)…"
  npm ci --no-audit --no-fund --loglevel=error
}

require_node
ensure_apt redis-server redis-server
if [[ "${AHP_NEEDS_BROWSER:-0}" == 1 ]]; then
  ensure_apt chromium chromium
fi
install_npm_packages

# Nx: never reach for the cloud, no daemon left behind, plain logs.
export NX_NO_CLOUD=true NX_DAEMON=false NX_TUI=false NX_SKIP_NX_CACHE="${NX_SKIP_NX_CACHE:-false}"
