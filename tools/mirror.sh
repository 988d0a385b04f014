#!/usr/bin/env bash
# Builds a snapshot release of the provider with the pinned goreleaser and
# lays its archives out as a Terraform/OpenTofu filesystem mirror in the
# "packed" layout:
#
#   <mirror>/registry.terraform.io/docsadmin/docsadmin/terraform-provider-docsadmin_<version>_<os>_<arch>.zip
#   <mirror>/registry.opentofu.org/docsadmin/docsadmin/terraform-provider-docsadmin_<version>_<os>_<arch>.zip
#
# Usage: tools/mirror.sh [-all] <mirror-dir>
#
# By default only the local platform (go env GOOS/GOARCH, so GOOS= and GOARCH=
# choose another) is built, from .goreleaser.yml with its platform matrix
# replaced; -all builds every platform of .goreleaser.yml as a release does.
# The archives, dist/*_SHA256SUMS and the manifest stay in dist/, or in the
# directory MIRROR_DIST names (goreleaser empties it first).
#
# Prints the snapshot version (e.g. 0.0.1-dev-1a2b3c4) on stdout, alone;
# goreleaser's log goes to stderr. A prerelease version is only installed when
# a configuration asks for exactly it: version = "<version>".
#
# Installing from a filesystem mirror records only an h1: hash of the local
# platform in .terraform.lock.hcl. To have zh: hashes as well, write the lock
# file before `terraform init` with "zh:<sha256>" entries taken from
# dist/terraform-provider-docsadmin_<version>_SHA256SUMS: init checks the
# archive against them and adds its h1: hash.
set -euo pipefail
cd "$(dirname "$0")/.."
progress_tool=mirror.sh
# shellcheck source=tools/progress.sh
source tools/progress.sh

all=false
if [[ "${1:-}" == "-all" ]]; then
  all=true
  shift
fi
[[ $# -eq 1 && -n "$1" ]] || { echo "usage: tools/mirror.sh [-all] <mirror-dir>" >&2; exit 2; }
mirror="$1"

dist="${MIRROR_DIST:-dist}"
step "finding goreleaser (the first run builds it: several minutes, said as it goes)"
goreleaser="$(tools/goreleaser.sh)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

config=.goreleaser.yml
if [[ -n "${MIRROR_DIST:-}" ]]; then
  config="$work/goreleaser-dist.yml"
  { cat .goreleaser.yml; printf 'dist: "%s"\n' "$dist"; } > "$config"
fi
if ! $all; then
  target="$(go env GOOS)_$(go env GOARCH)"
  # Replace the build's goos, goarch and ignore lists (each key at four
  # spaces, its items indented deeper) with a single target.
  awk -v target="$target" '
    /^    (goos|goarch|ignore):/ {
      skipping = 1
      if (!done) { print "    targets: [" target "]"; done = 1 }
      next
    }
    skipping && /^      / { next }
    { skipping = 0; print }
  ' "$config" > "$work/goreleaser-$target.yml"
  config="$work/goreleaser-$target.yml"
  grep -q "^    targets: \[$target\]\$" "$config" || { echo "could not restrict .goreleaser.yml to $target" >&2; exit 1; }
fi

# Snapshot: no tag needed, nothing signed or published.
if $all; then
  step "building a snapshot release for every platform of .goreleaser.yml (minutes)"
else
  step "building a snapshot release for $target (the first build compiles the provider's modules: a few minutes)"
fi
with_heartbeat "building the snapshot release" "$goreleaser" release --snapshot --clean --skip=sign,publish --config "$config" >&2

sums=("$dist"/terraform-provider-docsadmin_*_SHA256SUMS)
[[ -f "${sums[0]}" && ${#sums[@]} -eq 1 ]] || { echo "expected one SHA256SUMS file in $dist/" >&2; exit 1; }
version="${sums[0]#"$dist"/terraform-provider-docsadmin_}"
version="${version%_SHA256SUMS}"
(cd "$dist" && sha256sum --quiet --check --ignore-missing "${sums[0]#"$dist"/}") >&2

zips=("$dist"/terraform-provider-docsadmin_"${version}"_*.zip)
[[ -f "${zips[0]}" ]] || { echo "no archives for $version in $dist/" >&2; exit 1; }
for host in registry.terraform.io registry.opentofu.org; do
  dir="$mirror/$host/docsadmin/docsadmin"
  mkdir -p "$dir"
  cp "${zips[@]}" "$dir/"
  step "mirrored ${#zips[@]} archive(s) of $version into $dir"
done
echo "$version"
