#!/usr/bin/env bash
# Prints the path of a Terraform binary of a pinned version, building it from
# its Go module source on first use. The build is cached outside the
# repository, next to the OpenTofu build of tools/opentofu.sh.
#
# `go mod download` verifies the module against go.sum's checksum database
# entry (GOSUMDB), so the source built is the one published for the tag.
set -euo pipefail
progress_tool=terraform.sh
# shellcheck source=tools/progress.sh
source "$(dirname "$0")/progress.sh"

version="${TERRAFORM_VERSION:-v1.16.4}"
cache="${DOCSADMIN_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-docsadmin}"
binary="$cache/terraform-$version/terraform"

if [[ ! -x "$binary" ]]; then
  step "building Terraform $version into $binary (first run only: about 5 minutes on 2 cores)"
  step "downloading github.com/hashicorp/terraform@$version"
  src_dir=$(cd "$(mktemp -d)" && go mod download -json "github.com/hashicorp/terraform@$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [[ -n "$src_dir" ]] || { echo "cannot download github.com/hashicorp/terraform@$version" >&2; exit 1; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # The module cache is read-only; build from a writable copy.
  cp -R "$src_dir/." "$work/"
  chmod -R u+w "$work"

  # Terraform's go.mod points some packages at nested modules through
  # `replace ... => ./internal/...` directives. A module zip never contains
  # nested modules, so those directories are missing here. They are the
  # remote-state backends below (not needed to run a provider's tests: state
  # stays local) and internal/legacy (imported by one test only). Drop their
  # requirements and replacements, and the backends' imports and
  # registrations from the backend list.
  nested=(azure consul cos gcs kubernetes oss pg s3 oci)
  edits=()
  for name in "${nested[@]}"; do
    mod="github.com/hashicorp/terraform/internal/backend/remote-state/$name"
    edits+=("-droprequire=$mod" "-dropreplace=$mod")
  done
  edits+=("-droprequire=github.com/hashicorp/terraform/internal/legacy" "-dropreplace=github.com/hashicorp/terraform/internal/legacy")
  (cd "$work" && go mod edit "${edits[@]}")
  init_go="$work/internal/backend/init/init.go"
  for name in "${nested[@]}"; do
    # The import line ends in ".../remote-state/<name>"; the registration
    # line calls backend<Name>.New() through that import's alias.
    alias=$(sed -n "s|^[[:space:]]*\(backend[A-Za-z0-9_]*\) \"github.com/hashicorp/terraform/internal/backend/remote-state/$name\"\$|\1|p" "$init_go")
    [[ -n "$alias" ]] || { echo "no import of remote-state/$name in $init_go: update tools/terraform.sh for $version" >&2; exit 1; }
    sed -i -e "\|\"github.com/hashicorp/terraform/internal/backend/remote-state/$name\"\$|d" \
      -e "/return $alias\.New()/d" "$init_go"
  done
  if grep -q 'remote-state/\(azure\|consul\|cos\|gcs\|kubernetes\|oss\|pg\|s3\|oci\)"' "$init_go"; then
    echo "$init_go still imports a dropped backend" >&2
    exit 1
  fi

  mkdir -p "$(dirname "$binary")"
  # -mod=mod lets the go command settle go.mod after the edit; every module it
  # needs comes from the module proxy and is checked against go.sum.
  # version.dev=no makes `terraform version` report the release, not -dev.
  step "compiling (the modules it needs are downloaded first)"
  (cd "$work" && with_heartbeat "compiling Terraform $version" env CGO_ENABLED=0 go build -mod=mod -trimpath \
    -ldflags "-X github.com/hashicorp/terraform/version.dev=no" \
    -o "$binary.tmp" .)
  mv "$binary.tmp" "$binary"
  step "built $binary"
fi
echo "$binary"
