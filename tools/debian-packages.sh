#!/usr/bin/env bash
# Installs the Debian packages that the tests run, when their commands are
# missing: the unpackers of internal/archive's differential test (bsdtar,
# busybox tar; GNU tar and Python 3 come with Debian), jq for the example
# pipeline's steps, shellcheck, which actionlint runs on the workflow's
# scripts, nginx, the web server that internal/sitetest serves an unpacked
# export with, using the configuration the static hosting guide gives, and
# Node.js, which runs the example's CloudFront Function there, and npm,
# which installs Azurite, the Azure Blob server of the object-store tests
# (tools/azurite.sh). Does nothing
# when every command is there.
set -euo pipefail

declare -A package_of=(
  [bsdtar]=libarchive-tools
  [busybox]=busybox
  [tar]=tar
  [python3]=python3
  [jq]=jq
  [shellcheck]=shellcheck
  [nginx]=nginx
  [node]=nodejs
  [npm]=npm
)
missing=()
for command in "${!package_of[@]}"; do
  command -v "$command" >/dev/null 2>&1 || missing+=("${package_of[$command]}")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
sudo=()
if [[ $(id -u) != 0 ]]; then
  sudo=(sudo)
fi
echo "installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
