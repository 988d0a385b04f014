#!/bin/sh
# Syncs a verified, unpacked export ($SITE) to s3://$BUCKET without ever
# publishing half of it: the files that others refer to first, then the
# pages, RSC payloads, sitemap and search index that refer to them, and only
# then the deletion of what the export no longer holds. Each pass sets the
# Content-Type and Cache-Control the manifest gives ($MANIFEST, the files
# attribute of docsadmin_static_site), one pass per pair of them.
set -eu
: "${SITE:?}" "${BUCKET:?}" "${MANIFEST:?}"

# aws s3 sync compares sizes and modification times, not content, and the
# unpacked files carry the archive's times: a page that changed but kept its
# size would be skipped. So every file whose MD5 differs from the object's
# ETag (or that the bucket lacks) is marked newer first. An ETag that is no
# MD5 (multipart or KMS uploads) always differs: such files upload again.
remote=$(mktemp)
trap 'rm -f "$remote"' EXIT
aws s3api list-objects-v2 --bucket "$BUCKET" --output json --query 'Contents[].[Key, ETag]' >"$remote"
jq -r --slurpfile remote "$remote" '
  (($remote[0] // []) | map({(.[0]): .[1]}) | add // {}) as $etag
  | to_entries[] | select($etag[.key] != ("\"" + .value.md5 + "\"")) | .key' "$MANIFEST" |
  while IFS= read -r name; do
    touch "$SITE/$name"
  done

# pass KIND: syncs the files of KIND (assets or pages), one group of
# Content-Type and Cache-Control at a time.
pass() {
  jq -r --arg kind "$1" '
    to_entries
    | map(select((.key | test("\\.(html|txt|xml|json)$")) == ($kind == "pages")))
    | group_by([.value.content_type, .value.cache_control])[]
    | [.[0].value.content_type, .[0].value.cache_control, map(.key)]
    | @json' "$MANIFEST" |
    while IFS= read -r group; do
      content_type=$(printf '%s' "$group" | jq -r '.[0]')
      cache_control=$(printf '%s' "$group" | jq -r '.[1]')
      # --exclude '*' then --include FILE for each file of the group, in
      # batches of 100 files (an even count keeps each pair together).
      printf '%s' "$group" | jq -j '.[2][] | "--include\u0000\(.)\u0000"' |
        xargs -0 -n 200 aws s3 sync "$SITE" "s3://$BUCKET" --only-show-errors --exclude '*' \
          --content-type "$content_type" --cache-control "$cache_control"
    done
}

pass assets
pass pages
# Everything is in place: now remove what the export no longer holds.
aws s3 sync "$SITE" "s3://$BUCKET" --only-show-errors --delete
