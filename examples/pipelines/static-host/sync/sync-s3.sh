#!/bin/sh
# Syncs a verified, unpacked export ($SITE: its directory, or a symbolic link
# to it as docsadmin_static_site publishes it) to s3://$BUCKET without ever
# publishing half of it. The manifest ($MANIFEST: the manifest_file of
# docsadmin_static_site, a JSON object by path, as the files of
# docsadmin_static_site_manifest) gives each file's MD5, Content-Type and
# Cache-Control. A file is uploaded when the bucket lacks it or holds it with
# another ETag (an ETag that is no MD5, from a multipart or KMS upload,
# always differs: such files upload again), in three passes:
#   1. the files that pages refer to: scripts, styles, fonts, images;
#   2. the pages, RSC payloads, sitemaps and indexes that the bucket lacks,
#      which no published page links to yet;
#   3. the pages, payloads, sitemaps and indexes that it holds in another
#      version, which may now link to the new ones.
# Then what the export no longer holds is deleted: its pages first, and only
# then the files they referred to, so that a stale page never loses its
# styles. Each upload sets the Content-Type and Cache-Control the manifest
# gives, one `aws s3 cp` per pair of them and per 100 files. The tree is only
# read: aws s3 sync would compare sizes and times, not content.
set -eu
: "${SITE:?}" "${BUCKET:?}" "${MANIFEST:?}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The bucket's ETags by key.
aws s3api list-objects-v2 --bucket "$BUCKET" --output json --query 'Contents[].[Key, ETag]' >"$work/listing.json"
jq '(. // []) | map({(.[0]): .[1]}) | add // {}' "$work/listing.json" >"$work/remote.json"

# What refers to other files, by name; the rest is referred to.
pages='\.(html|txt|xml|json)$'

# upload PASS: uploads the files of PASS (assets, new-pages, pages) that the
# bucket does not hold as they are, one group of Content-Type and
# Cache-Control at a time.
upload() {
  jq -r --arg pass "$1" --arg pages "$pages" --slurpfile remote "$work/remote.json" '
    $remote[0] as $etag
    | to_entries
    | map(.key as $key | select($etag[$key] != ("\"" + .value.md5 + "\"")
        and (if $pass == "assets" then ($key | test($pages) | not)
             elif $pass == "new-pages" then ($key | test($pages)) and ($etag | has($key) | not)
             else ($key | test($pages)) and ($etag | has($key)) end)))
    | group_by([.value.content_type, .value.cache_control])[]
    | [.[0].value.content_type, .[0].value.cache_control, map(.key)]
    | @json' "$MANIFEST" >"$work/groups"
  while IFS= read -r group; do
    content_type=$(printf '%s' "$group" | jq -r '.[0]')
    cache_control=$(printf '%s' "$group" | jq -r '.[1]')
    # --exclude '*' then --include=FILE for each file of the group, its
    # wildcards escaped, in batches of 100 files.
    printf '%s' "$group" | jq -j '.[2][] | "--include=\(gsub("(?<c>[\\[\\]*?])"; "[\(.c)]"))\u0000"' >"$work/includes"
    xargs -0 -n 100 aws s3 cp "$SITE" "s3://$BUCKET" --recursive --only-show-errors --exclude '*' \
      --content-type "$content_type" --cache-control "$cache_control" <"$work/includes"
  done <"$work/groups"
}

# delete PASS: deletes the objects of PASS (pages, assets) that the export no
# longer holds, 1,000 per request.
delete() {
  jq -c --arg pass "$1" --arg pages "$pages" --slurpfile manifest "$MANIFEST" '
    [keys[] | . as $key | select(($manifest[0] | has($key) | not) and (test($pages) == ($pass == "pages")))]
    | range(0; length; 1000) as $i
    | {Objects: (.[$i:$i + 1000] | map({Key: .})), Quiet: true}' "$work/remote.json" >"$work/batches"
  while IFS= read -r batch; do
    printf '%s\n' "$batch" >"$work/delete.json"
    aws s3api delete-objects --bucket "$BUCKET" --delete "file://$work/delete.json" --output json >"$work/deleted.json"
    if [ -s "$work/deleted.json" ] && jq -e '(.Errors // []) | length > 0' "$work/deleted.json" >/dev/null; then
      echo "sync-s3.sh: some objects of s3://$BUCKET could not be deleted:" >&2
      jq -c '.Errors[]' "$work/deleted.json" >&2
      exit 1
    fi
  done <"$work/batches"
}

upload assets
upload new-pages
upload pages
# Everything is in place: now remove what the export no longer holds.
delete pages
delete assets
