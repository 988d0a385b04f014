// Package sitetest serves an export of the mock API with a real web server
// and the configuration the documentation gives, and crawls it as a browser
// and a search engine would. It holds tests only; nginx comes from
// tools/debian-packages.sh (make packages).
package sitetest
