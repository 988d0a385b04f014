// Package sitetest serves an export of the mock API with real servers and
// the configuration the documentation gives, and crawls every URL as a
// browser and a search engine would: nginx with the static hosting guide's
// server block, the S3 example's CloudFront Function under Node.js, a site
// switched under nginx and Go's file server while they are crawled, and
// exports published into a real S3-compatible server (versitygw) with the
// code behind docsadmin_static_site_bucket while the bucket is crawled. It
// holds tests only; nginx comes from tools/debian-packages.sh (make
// packages), versitygw from tools/versitygw.sh (make tools).
package sitetest
