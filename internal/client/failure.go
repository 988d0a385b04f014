package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/redirect"
)

// Kind is what a failed call met. The provider words its messages and hints
// from it, so it never reads HTTP status codes itself.
type Kind string

const (
	// KindUnreachable: no connection could be made (DNS, refused, no
	// route). Nothing was sent.
	KindUnreachable Kind = "unreachable"
	// KindTLS: the TLS handshake failed, for example on a certificate from
	// an unknown authority. Nothing was sent.
	KindTLS Kind = "tls"
	// KindProtocol: the server does not speak the protocol of the API's URL, for
	// example a plain-HTTP answer to an HTTPS request. Nothing was sent.
	KindProtocol Kind = "protocol"
	// KindRedirected: the answer was a redirect, which the client does not
	// follow: the API answers at its own address, so something else (a
	// proxy, a login page, another address) answered.
	KindRedirected Kind = "redirected"
	// KindTransport: the connection broke after the request was sent.
	KindTransport Kind = "transport"
	// KindUnreadable: a 2xx answer whose body could not be read.
	KindUnreadable   Kind = "unreadable"
	KindRateLimited  Kind = "rate limited" // 429
	KindServer       Kind = "server"       // 5xx
	KindUnauthorized Kind = "unauthorized" // 401
	KindForbidden    Kind = "forbidden"    // 403
	// KindNoSuchPath: a 404 that does not come from the API speaking of
	// the object: on a collection, which always exists, or with a body
	// that is not the API's own error naming the object (a router's
	// generic "Not Found", another API's {"error": "not_found"}, a proxy's
	// HTML page, an empty body). The API's URL points elsewhere, or the
	// route does not exist; nothing is known of the object.
	KindNoSuchPath Kind = "no such path"
	// KindNotFound: the API said the object does not exist, a 404 with its
	// own error naming the object, or its documented message for a missing
	// one. Only this means that the object is gone.
	KindNotFound Kind = "not found"
	KindConflict Kind = "conflict"      // 409
	KindRejected Kind = "rejected"      // any other 4xx
	KindOther    Kind = "not an answer" // anything else: a context that ended, a bad identifier
)

// Failure is how a failed call is understood, decided once, here: the
// client's retries, the poller's choice between trying again and giving up,
// and the provider's wording all read it.
type Failure struct {
	Kind Kind
	// Transient failures may not recur: the call is worth trying again.
	Transient bool
	// MayHaveActed tells whether the server could have acted on the
	// request; a call that is not idempotent is then never repeated.
	MayHaveActed bool
	// Reason describes the failure in a few words, for the retry log.
	Reason string
	// RetryAfter is how long the server asked to wait (its Retry-After),
	// 0 when it did not say.
	RetryAfter time.Duration
}

// Classify understands err. A 429, a failure before anything was sent and
// any other 4xx promise that nothing was done; a broken connection after
// sending, every 5xx and a 2xx whose body could not be read do not. A 502,
// 503 or 504 may come from a gateway that had already passed the request
// on, and a Retry-After says when to come back, not that nothing was done:
// a call that starts work is repeated after none of them.
func Classify(err error) Failure {
	var reqErr *RequestError
	if errors.As(err, &reqErr) {
		return classifyTransport(reqErr)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return Failure{Kind: KindOther}
	}
	f := classifyStatus(apiErr)
	f.RetryAfter = apiErr.RetryAfter
	return f
}

func classifyStatus(apiErr *APIError) Failure {
	reason := fmt.Sprintf("HTTP %d", apiErr.StatusCode)
	switch code := apiErr.StatusCode; {
	case code == http.StatusTooManyRequests:
		return Failure{Kind: KindRateLimited, Transient: true, Reason: reason + " (rate limited)"}
	case code >= 500:
		return Failure{Kind: KindServer, Transient: true, MayHaveActed: true, Reason: reason}
	case code >= 200 && code < 300:
		// Reading again is harmless, but a start that succeeded must not be
		// sent twice.
		return Failure{Kind: KindUnreadable, Transient: true, MayHaveActed: true, Reason: reason + " with an unreadable body"}
	case code == http.StatusUnauthorized:
		return Failure{Kind: KindUnauthorized, Reason: reason}
	case code == http.StatusForbidden:
		return Failure{Kind: KindForbidden, Reason: reason}
	case code == http.StatusNotFound && (apiErr.collection || !apiErr.gone):
		return Failure{Kind: KindNoSuchPath, Reason: reason + " (no such path)"}
	case code == http.StatusNotFound:
		return Failure{Kind: KindNotFound, Reason: reason}
	case code == http.StatusConflict:
		return Failure{Kind: KindConflict, Reason: reason}
	}
	return Failure{Kind: KindRejected, Reason: reason}
}

func classifyTransport(e *RequestError) Failure {
	var refused *redirect.Error
	if errors.As(e.Err, &refused) {
		// Sent again it would meet the same redirect.
		return Failure{Kind: KindRedirected, MayHaveActed: e.MaybeProcessed, Reason: e.Err.Error()}
	}
	if !e.MaybeProcessed {
		kind := notSentKind(e.Err)
		if kind == KindUnreachable && unknownHost(e.Err) {
			// The name servers answered that the name does not exist: asking
			// again within seconds gets the same answer.
			return Failure{Kind: kind, Reason: "the API's host name does not resolve (no such host); nothing was sent"}
		}
		// A certificate or a protocol does not change between attempts.
		return Failure{Kind: kind, Transient: kind == KindUnreachable, Reason: notSentReasons[kind]}
	}
	return Failure{Kind: KindTransport, Transient: true, MayHaveActed: true, Reason: "transport failure: " + e.Err.Error()}
}

var notSentReasons = map[Kind]string{
	KindUnreachable: "connection refused before the request was sent",
	KindTLS:         "TLS handshake failed before the request was sent",
	KindProtocol:    "the server does not speak the request's protocol; nothing was sent",
}

// notSent reports failures where the request surely never reached a
// server: no connection, a failed TLS handshake, or a server that does not
// speak the request's protocol.
func notSent(err error) bool {
	return notSentKind(err) != ""
}

func notSentKind(err error) Kind {
	var opErr *net.OpError
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &dnsErr), errors.As(err, &opErr) && opErr.Op == "dial":
		return KindUnreachable
	case isTLSHandshakeError(err):
		return KindTLS
	case isProtocolMismatch(err):
		return KindProtocol
	}
	return ""
}

// unknownHost reports a host name that the name servers say does not
// exist (NXDOMAIN), unlike a lookup that timed out or failed for now.
func unknownHost(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound
}

func isTLSHandshakeError(err error) bool {
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verification *tls.CertificateVerificationError
	var alert tls.AlertError
	return errors.As(err, &unknownAuthority) || errors.As(err, &hostname) || errors.As(err, &invalid) ||
		errors.As(err, &verification) || errors.As(err, &alert)
}

// isProtocolMismatch reports an HTTPS request answered in plain HTTP, which
// net/http notices before sending anything (it reports it in words only).
func isProtocolMismatch(err error) bool {
	var record tls.RecordHeaderError
	return errors.As(err, &record) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

// IsTransient reports errors worth trying again later (see Classify).
func IsTransient(err error) bool { return Classify(err).Transient }

// MayHaveActed reports whether the server could have acted on a request that
// failed with err (see Classify).
func MayHaveActed(err error) bool { return Classify(err).MayHaveActed }
