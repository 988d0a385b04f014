#!/usr/bin/env bash
# Prints the path of the fake-gcs-server pinned in tools/fake-gcs-server/go.mod,
# building it on first use: the Google Cloud Storage emulator that
# internal/storetest starts for tests of the GCS target. The binary is cached
# outside the repository, next to versitygw, under a name keyed by the tool
# module's go.mod and go.sum, so a version bump builds afresh; the tests look
# for it there.
set -euo pipefail
progress_tool=fake-gcs-server.sh
# shellcheck source=tools/progress.sh
source "$(dirname "$0")/progress.sh"

module_dir="$(cd "$(dirname "$0")/fake-gcs-server" && pwd)"
cache="${DOCSADMIN_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-docsadmin}"
key=$(cat "$module_dir/go.mod" "$module_dir/go.sum" | sha256sum | cut -c1-16)
binary="$cache/fake-gcs-server-$key/fake-gcs-server"

if [[ ! -x "$binary" ]]; then
  step "building fake-gcs-server from tools/fake-gcs-server/go.mod into $binary (first run only: a few minutes, its modules downloaded first)"
  mkdir -p "$(dirname "$binary")"
  (cd "$module_dir" && with_heartbeat "building fake-gcs-server" env GOWORK=off CGO_ENABLED=0 go build -trimpath -o "$binary.tmp.$$" github.com/fsouza/fake-gcs-server)
  mv "$binary.tmp.$$" "$binary"
  step "built $binary"
fi
echo "$binary"
