#!/usr/bin/env bash
# Prints the path of the goreleaser pinned in tools/goreleaser/go.mod,
# building it on first use. The binary is cached outside the repository,
# next to the Terraform and OpenTofu builds, under a name keyed by the tool
# module's go.mod and go.sum, so a version bump builds afresh.
set -euo pipefail
progress_tool=goreleaser.sh
# shellcheck source=tools/progress.sh
source "$(dirname "$0")/progress.sh"

module_dir="$(cd "$(dirname "$0")/goreleaser" && pwd)"
cache="${DOCSADMIN_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-docsadmin}"
key=$(cat "$module_dir/go.mod" "$module_dir/go.sum" | sha256sum | cut -c1-16)
binary="$cache/goreleaser-$key/goreleaser"

if [[ ! -x "$binary" ]]; then
  step "building goreleaser from tools/goreleaser/go.mod into $binary (first run only: a few minutes, its modules downloaded first)"
  mkdir -p "$(dirname "$binary")"
  (cd "$module_dir" && with_heartbeat "building goreleaser" env GOWORK=off CGO_ENABLED=0 go build -trimpath -o "$binary.tmp.$$" github.com/goreleaser/goreleaser/v2)
  mv "$binary.tmp.$$" "$binary"
  step "built $binary"
fi
echo "$binary"
