// Package bundlelink reads presigned object-storage links: when they expire
// (Expiry), which query parameters carry the signature (Signature, and
// SignatureInText, the one pattern of a signing parameter in free text), and
// every rule of how a link may appear: redacted (Redact), by host only
// (Host), or kept out of an error that quotes it (WithoutLink). It must
// never return a signature in anything meant to be shown; callers that show
// a link go through it, and redact applies its signature pattern to free
// text and to log masking.
package bundlelink
