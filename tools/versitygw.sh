#!/usr/bin/env bash
# Prints the path of the versitygw pinned in tools/versitygw/go.mod, building
# it on first use: the S3-compatible server (posix backend) that the
# object-store tests publish into (internal/storetest starts it). The binary is cached outside
# the repository, next to the goreleaser and Terraform builds, under a name
# keyed by the tool module's go.mod and go.sum, so a version bump builds
# afresh; the tests look for it there.
set -euo pipefail
progress_tool=versitygw.sh
# shellcheck source=tools/progress.sh
source "$(dirname "$0")/progress.sh"

module_dir="$(cd "$(dirname "$0")/versitygw" && pwd)"
cache="${DOCSADMIN_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-docsadmin}"
key=$(cat "$module_dir/go.mod" "$module_dir/go.sum" | sha256sum | cut -c1-16)
binary="$cache/versitygw-$key/versitygw"

if [[ ! -x "$binary" ]]; then
  step "building versitygw from tools/versitygw/go.mod into $binary (first run only: a few minutes, its modules downloaded first)"
  mkdir -p "$(dirname "$binary")"
  (cd "$module_dir" && with_heartbeat "building versitygw" env GOWORK=off CGO_ENABLED=0 go build -trimpath -o "$binary.tmp.$$" github.com/versity/versitygw/cmd/versitygw)
  mv "$binary.tmp.$$" "$binary"
  step "built $binary"
fi
echo "$binary"
