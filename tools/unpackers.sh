#!/usr/bin/env bash
# Installs the unpackers that internal/archive's differential test runs
# against every archive the verifier accepts: GNU tar and Python 3 (present
# on Debian), bsdtar (libarchive-tools) and busybox tar. Does nothing when
# they are already there.
set -euo pipefail

missing=()
command -v bsdtar >/dev/null 2>&1 || missing+=(libarchive-tools)
command -v busybox >/dev/null 2>&1 || missing+=(busybox)
command -v tar >/dev/null 2>&1 || missing+=(tar)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if ((${#missing[@]} == 0)); then
  exit 0
fi
sudo=()
if [[ $(id -u) != 0 ]]; then
  sudo=(sudo)
fi
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
