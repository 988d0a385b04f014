#!/usr/bin/env bash
# Prints the path of azurite-blob, the Azure Blob Storage emulator pinned in
# tools/azurite/package-lock.json, installing it on first use with `npm ci`:
# internal/storetest starts it with Node.js for tests of the Azure target.
# The installation is cached outside the repository, next to versitygw,
# under a name keyed by package.json and the lock file, so a version bump
# installs afresh; the tests look for it there.
set -euo pipefail
progress_tool=azurite.sh
# shellcheck source=tools/progress.sh
source "$(dirname "$0")/progress.sh"

package_dir="$(cd "$(dirname "$0")/azurite" && pwd)"
cache="${DOCSADMIN_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-docsadmin}"
key=$(cat "$package_dir/package.json" "$package_dir/package-lock.json" | sha256sum | cut -c1-16)
dir="$cache/azurite-$key"
launcher="$dir/node_modules/.bin/azurite-blob"

if [[ ! -e "$launcher" ]]; then
  if ! command -v npm >/dev/null 2>&1; then
    step "npm is needed to install azurite and is not on PATH (Debian: apt-get install npm)"
    exit 1
  fi
  step "installing azurite from tools/azurite/package-lock.json into $dir (first run only: a few minutes, its packages downloaded first)"
  mkdir -p "$cache"
  tmp="$dir.tmp.$$"
  rm -rf "$tmp"
  mkdir "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  cp "$package_dir/package.json" "$package_dir/package-lock.json" "$tmp/"
  # The lock holds no install scripts; none runs, whatever a later lock holds.
  (cd "$tmp" && with_heartbeat "installing azurite" npm ci --ignore-scripts --no-audit --no-fund --loglevel=warn >&2)
  # Whole or not at all: another run that got here first keeps its copy.
  mv -T "$tmp" "$dir" 2>/dev/null || [[ -e "$launcher" ]]
  step "installed $dir"
fi
echo "$launcher"
