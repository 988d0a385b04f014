#!/usr/bin/env bash
# Prints the path of an OpenTofu binary, building it from its Go module source
# on first use. The build is cached outside the repository.
set -euo pipefail

version="${OPENTOFU_VERSION:-v1.12.6}"
cache="${DOCSADMIN_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-docsadmin}"
binary="$cache/opentofu-$version/tofu"

if [[ ! -x "$binary" ]]; then
  echo "building OpenTofu $version into $binary (first run only)" >&2
  src_dir=$(cd "$(mktemp -d)" && go mod download -json "github.com/opentofu/opentofu@$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [[ -n "$src_dir" ]] || { echo "cannot download github.com/opentofu/opentofu@$version" >&2; exit 1; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # The module cache is read-only; build from a writable copy.
  cp -R "$src_dir/." "$work/"
  chmod -R u+w "$work"
  mkdir -p "$(dirname "$binary")"
  # version.dev=no makes `tofu version` report the release, not -dev, as
  # tools/terraform.sh does for Terraform.
  (cd "$work" && CGO_ENABLED=0 go build -trimpath \
    -ldflags "-X github.com/opentofu/opentofu/version.dev=no" \
    -o "$binary.tmp" ./cmd/tofu)
  mv "$binary.tmp" "$binary"
fi
echo "$binary"
