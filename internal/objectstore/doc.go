// Package objectstore publishes a verified, unpacked site into an object
// store (S3 and S3-compatible stores, GCS, Azure Blob) through gocloud.dev's
// portable blob API, by content and in an order no reader sees half of. It
// must never overwrite or delete an object that a trusted record does not
// list, and never take credentials from anywhere but each SDK's standard
// chain.
//
// What the provider wrote under a prefix is listed in a record beside the
// site (RecordKey), whose SHA-256 state pins (Record says when a record is
// trusted). A publication reads the record and lists the prefix once (in
// ranges of the record's keys at once where the store starts a listing
// after a key: listing.go), compares the listing with
// the record and the site's manifest, uploads only new or changed files
// (assets, then new pages, then changed pages, then the root's index), and
// deletes what the new site lacks last, pages before the files they refer
// to, within a bound. Drift is read from the listing alone: gocloud gives
// an MD5 where the store keeps one, and checks Content-MD5 on every upload.
// Conditional creates and errors map alike for the three stores (gcerrors),
// so one code path serves them all. The S3 client is built by hand for the
// endpoint, path-style and checksum settings that S3-compatible stores need.
// Errors of a store are shown to users only through the provider's
// sanitizer, since an SDK may quote a signature.
package objectstore
