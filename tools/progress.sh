# shellcheck shell=bash
# Sourced by the scripts that build a pinned tool on first use: what they
# do, step by step, on stderr (stdout carries the binary's path), and while
# a long step runs a line every 30 seconds, so that a first `make test`
# that builds for minutes does not look stuck.
#
#   progress_tool=terraform; source "$(dirname "$0")/progress.sh"
#   step "downloading the module"
#   with_heartbeat "building" go build ...

progress_start=$SECONDS

# elapsed is the time since the script started, such as 2m05s.
elapsed() {
  local s=$((SECONDS - progress_start))
  printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# step says what the script does now.
step() {
  echo "${progress_tool:-tools}: $* ($(elapsed))" >&2
}

# with_heartbeat runs a command, saying every 30 seconds (PROGRESS_EVERY)
# that it still runs.
with_heartbeat() {
  local what=$1
  shift
  local script=$$
  local every=${PROGRESS_EVERY:-30}
  # On stderr, so that a sleep outliving the loop holds no pipe of stdout open.
  (while sleep "$every" && kill -0 "$script" 2>/dev/null; do step "still $what"; done) >&2 &
  local beat=$!
  local status=0
  "$@" || status=$?
  kill "$beat" 2>/dev/null || true
  wait "$beat" 2>/dev/null || true
  return "$status"
}
