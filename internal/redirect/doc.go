// Package redirect is the one redirect rule of every HTTP client of the
// provider: the API client's, which follows none, and the archive
// downloads', which follow a presigned link's redirects within the rule.
// It must never let a redirect carry credentials, a body or a signature
// somewhere the first request did not promise to send them.
//
// A redirect is followed only when it keeps every promise the first request
// made: it does not step down from https (the answer, and a link's query,
// would travel in clear), it does not change the method (a 301, 302 or 303
// turns a POST into a GET without its body: another call than the one
// made), and a request that carries credentials (an Authorization header)
// does not leave the origin it was sent to. Go's own client keeps
// Authorization on a redirect to the same host name whatever the scheme or
// port, and to its subdomains. No redirect carries a Referer, which would
// hand the previous URL, a presigned link's signature included, to the next
// server. Errors name the status and the target's scheme and host, never
// its path or query.
//
// The API answers at its own address and documents no redirect, so the API
// client follows none: a redirect there means something else answered (a
// proxy, a login page, an http-to-https upgrade of a wrong base_url), and
// the client reports it as such rather than sending the key on.
package redirect
