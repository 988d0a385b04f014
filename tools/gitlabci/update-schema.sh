#!/usr/bin/env bash
# Refreshes ci.json, GitLab's JSON schema of .gitlab-ci.yml
# (app/assets/javascripts/editor/schema/ci.json of gitlab-org/gitlab), from
# the copy that the npm package gitlab-ci-local bundles into its dist/index.js
# (the package's `fetch-schema` script takes it from GitLab before each
# release). Needs npm and node. GITLAB_CI_LOCAL_VERSION picks the release.
set -euo pipefail
cd "$(dirname "$0")"
version="${GITLAB_CI_LOCAL_VERSION:-4.75.1}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "gitlab-ci-local@$version" >/dev/null && tar xzf "gitlab-ci-local-$version.tgz")
node extract-schema.js "$work/package/dist/index.js" > ci.json.new
mv ci.json.new ci.json
echo "ci.json from gitlab-ci-local $version"
