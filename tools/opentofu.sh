#!/usr/bin/env bash
# Prints the path of an OpenTofu binary, building it from its Go module source
# on first use. The build is cached outside the repository.
set -euo pipefail
progress_tool=opentofu.sh
# shellcheck source=tools/progress.sh
source "$(dirname "$0")/progress.sh"

version="${OPENTOFU_VERSION:-v1.12.6}"
cache="${DOCSADMIN_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-docsadmin}"
binary="$cache/opentofu-$version/tofu"

if [[ ! -x "$binary" ]]; then
  step "building OpenTofu $version into $binary (first run only: several minutes)"
  step "downloading github.com/opentofu/opentofu@$version"
  src_dir=$(cd "$(mktemp -d)" && go mod download -json "github.com/opentofu/opentofu@$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [[ -n "$src_dir" ]] || { echo "cannot download github.com/opentofu/opentofu@$version" >&2; exit 1; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # The module cache is read-only; build from a writable copy.
  cp -R "$src_dir/." "$work/"
  chmod -R u+w "$work"

  # The remote-state backends bring in the cloud SDKs (AWS, Azure, Google
  # Cloud, Kubernetes, Alibaba, Tencent, PostgreSQL, Consul), a good part of
  # the build, and a provider's tests never use them: state stays local. As
  # in tools/terraform.sh, they are left out of the backend list.
  init_go="$work/internal/backend/init/init.go"
  for name in azure consul cos gcs kubernetes oss pg s3; do
    alias=$(sed -n "s|^[[:space:]]*\(backend[A-Za-z0-9_]*\) \"github.com/opentofu/opentofu/internal/backend/remote-state/$name\"\$|\1|p" "$init_go")
    [[ -n "$alias" ]] || { echo "no import of remote-state/$name in $init_go: update tools/opentofu.sh for $version" >&2; exit 1; }
    sed -i -e "\|\"github.com/opentofu/opentofu/internal/backend/remote-state/$name\"\$|d" \
      -e "/return $alias\.New(/d" "$init_go"
  done
  if grep -q 'remote-state/\(azure\|consul\|cos\|gcs\|kubernetes\|oss\|pg\|s3\)"' "$init_go"; then
    echo "$init_go still imports a dropped backend" >&2
    exit 1
  fi

  mkdir -p "$(dirname "$binary")"
  # version.dev=no makes `tofu version` report the release, not -dev, as
  # tools/terraform.sh does for Terraform.
  step "compiling (the modules it needs are downloaded first)"
  (cd "$work" && with_heartbeat "compiling OpenTofu $version" env CGO_ENABLED=0 go build -trimpath \
    -ldflags "-X github.com/opentofu/opentofu/version.dev=no" \
    -o "$binary.tmp" ./cmd/tofu)
  mv "$binary.tmp" "$binary"
  step "built $binary"
fi
echo "$binary"
