// Package sitetest serves an export of the mock API with a real web server
// and the configuration the documentation gives, and crawls it as a browser
// and a search engine would; it also publishes exports into a real
// S3-compatible server with the code behind docsadmin_static_site_bucket,
// crawling the bucket meanwhile. It holds tests only; nginx comes from
// tools/debian-packages.sh (make packages), versitygw from
// tools/versitygw.sh (make tools).
package sitetest
