// Package sitegen generates the documentation site a static export bundle
// holds (nested pages linked by .html links with their RSC payloads, a
// sitemap of extensionless URLs, robots.txt, a search index, hashed assets,
// fonts and images), stamped with a build or changed one page at a time, and
// writes it as the bundle's gzip'd tar, padded to any size and streamed as it
// is written. It is the one generator of the mock API, the tests and the
// benchmarks. It must never import the provider's packages: what it writes
// is the contract's description of a bundle, not the provider's reading of
// one, and the provider binary does not link it.
package sitegen
