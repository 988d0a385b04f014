package provider

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// Each check below returns a sentence saying what is wrong and what would be
// accepted, or "" when the value is fine. The validators wrap them for plan
// time; Configure reuses them for values read from the environment.

var apiKeyShape = regexp.MustCompile(`^[A-Za-z0-9]+_[A-Za-z0-9_\-]+$`)

// apiKeyProblem never quotes the key: it is a secret even when malformed.
func apiKeyProblem(key string) string {
	if apiKeyShape.MatchString(key) {
		return ""
	}
	return fmt.Sprintf("The API key (%d characters, value not shown) is not shaped like an admin API key. "+
		"Accepted: <prefix>_<secret>, a vendor prefix of letters and digits, an underscore, then the secret "+
		"(letters, digits, '_' or '-', no spaces), as generated on the dashboard's API keys page.", len(key))
}

// baseURLProblem is the rule of the API's address, base_url: an absolute
// http(s) URL with a host, without user information, query, fragment or a
// trailing API version. It returns an error for an unusable URL and a
// warning for plain http to a host that is not loopback, which would send
// the key unencrypted over a network. It differs from the rule of a link
// (redact.LinkShape): the value is the user's own and is quoted (unless it
// may carry credentials), and it names where requests go, not a resource
// to fetch.
func baseURLProblem(raw string) (problem, warning string) {
	const accepted = "Accepted: an absolute http(s) URL with a host and no query or fragment, such as https://api.example.com."
	u, err := url.Parse(raw)
	switch {
	case err != nil && strings.Contains(raw, "@"):
		return fmt.Sprintf("The value (%d characters, not shown as it may carry credentials) is not a URL. %s", len(raw), accepted), ""
	case err != nil:
		return fmt.Sprintf("%q is not a URL. %s", raw, accepted), ""
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("%q has no http or https scheme. %s", raw, accepted), ""
	case u.Host == "" || u.Hostname() == "":
		return fmt.Sprintf("%q has no host. %s", raw, accepted), ""
	case u.User != nil:
		return fmt.Sprintf("%q carries user information; the API authenticates with api_key only. %s", u.Redacted(), accepted), ""
	case u.RawQuery != "" || u.ForceQuery:
		return fmt.Sprintf("%q carries a query. %s", u.Scheme+"://"+u.Host+u.Path+"?…", accepted), ""
	case u.Fragment != "":
		return fmt.Sprintf("%q carries a fragment. %s", u.Scheme+"://"+u.Host+u.Path+"#…", accepted), ""
	case apiVersionSuffix.MatchString(u.Path):
		// Every endpoint carries its own version (/v1/..., /v2/...): with
		// one more, every request misses its route, and a missing route
		// must never read as a job that is gone.
		version := strings.TrimRight(apiVersionSuffix.FindString(u.Path), "/")
		fixed := *u
		fixed.Path = apiVersionSuffix.ReplaceAllString(u.Path, "")
		fixed.RawPath = ""
		return fmt.Sprintf("%q ends in the API version %s, which every endpoint adds itself (%s/...), so requests would miss their routes. "+
			"Use %q: the API's root, or a reverse proxy's prefix in front of it, without the version.", raw, version, version, fixed.String()), ""
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		warning = fmt.Sprintf("%q uses plain http to %s, which is not a loopback address: the API key and bundle links would cross the network unencrypted. Use https.", raw, u.Hostname())
	}
	return "", warning
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// apiVersionSuffix matches a path that ends in an API version segment.
var apiVersionSuffix = regexp.MustCompile(`(?i)/v[0-9]+/*$`)

var hostnameLabel = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

// rule is one way a value can be malformed: when bad, text says how.
type rule struct {
	bad  bool
	text string
}

// firstProblem is the text of the first bad rule followed by what is
// accepted, or "" when no rule is bad.
func firstProblem(accepted string, rules ...rule) string {
	for _, r := range rules {
		if r.bad {
			return r.text + " " + accepted
		}
	}
	return ""
}

// domainProblem accepts a bare hostname, as the export endpoint requires.
func domainProblem(domain string) string {
	q := fmt.Sprintf("%q", domain)
	return firstProblem("Accepted: a hostname only, such as docs.example.com (no scheme, port, path, trailing slash or spaces).",
		rule{domain == "", "The domain is empty."},
		rule{strings.TrimSpace(domain) != domain || strings.ContainsAny(domain, " \t\r\n"), q + " contains spaces."},
		rule{strings.Contains(domain, "://"), q + " contains a scheme."},
		rule{strings.HasSuffix(domain, "/"), q + " ends with a slash."},
		rule{strings.Contains(domain, "/"), q + " contains a path."},
		rule{strings.Contains(domain, ":"), q + " contains a port."},
		rule{len(domain) > 253, fmt.Sprintf("The domain is %d characters long; a hostname has at most 253.", len(domain))},
		rule{slices.ContainsFunc(strings.Split(domain, "."), func(label string) bool { return !hostnameLabel.MatchString(label) }),
			q + " is not a valid hostname: each dot-separated label must be 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen."},
	)
}

// pagePathProblem accepts a page path relative to the site root.
func pagePathProblem(p string) string {
	q := fmt.Sprintf("%q", p)
	return firstProblem("Accepted: a page path relative to the site root, such as index or guides/getting-started.",
		rule{strings.TrimSpace(p) == "", "A page path is empty."},
		rule{strings.ContainsAny(p, " \t\r\n"), q + " contains spaces."},
		rule{strings.Contains(p, "://"), q + " contains a scheme and host; give only the path."},
		rule{strings.HasPrefix(p, "//"), q + " starts with a host."},
		rule{strings.HasPrefix(p, "/"), q + " starts with a slash."},
		rule{strings.ContainsAny(p, "?#"), q + " contains a query or fragment."},
		rule{len(p) > 1024, fmt.Sprintf("A page path is %d characters long; it may have at most 1024.", len(p))},
		rule{strings.Contains(p, `\`), q + " contains a backslash; separate segments with '/'."},
		rule{slices.ContainsFunc(strings.Split(strings.TrimRight(p, "/"), "/"), func(segment string) bool {
			return segment == "" || segment == "." || segment == ".."
		}), q + " has an empty, '.' or '..' segment."},
	)
}

// durationProblem accepts a Go duration string of at least minimum.
func durationProblem(s string, minimum time.Duration) string {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Sprintf("%q is not a duration. Accepted: a number with a unit, such as 30s, 15m or 2h45m.", s)
	}
	if d < minimum {
		if minimum == 0 {
			return fmt.Sprintf("%q is negative. Accepted: zero or a positive duration, such as 0s, 15m or 2h.", s)
		}
		return fmt.Sprintf("%q is below the minimum of %s. Accepted: a duration of at least %s, such as 30s, 15m or 2h.", s, duration.Written(minimum), duration.Written(minimum))
	}
	return ""
}

// identifierProblem accepts an id of the one shape the client accepts in
// answers (client.ValidID), so that an id refused there is refused here, at
// plan time, before any request. kind names it ("job id"), example shows
// one.
func identifierProblem(kind, example, id string) string {
	if client.ValidID(id) {
		return ""
	}
	return firstProblem(fmt.Sprintf("Accepted: a %s as shown on the dashboard, such as %s: %s.", kind, example, client.IDShape),
		rule{strings.TrimSpace(id) == "", fmt.Sprintf("The %s is empty or blank.", kind)},
		rule{strings.ContainsAny(id, " \t\r\n"), fmt.Sprintf("%q contains spaces.", id)},
		rule{len(id) > client.MaxIDLength, fmt.Sprintf("The %s is %d characters long; it may have at most %d.", kind, len(id), client.MaxIDLength)},
		rule{true, fmt.Sprintf("%q is not a %s.", id, kind)},
	)
}

// stringCheck adapts one of the checks above to a plan-time validator.
type stringCheck struct {
	summary     string
	description string
	check       func(string) string
	// secret reports without an attribute path: Terraform prints the
	// configuration line of an attribute's error, which would show a secret
	// written literally in the configuration.
	secret bool
}

func (v stringCheck) Description(context.Context) string         { return v.description }
func (v stringCheck) MarkdownDescription(context.Context) string { return v.description }

func (v stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	switch problem := v.check(req.ConfigValue.ValueString()); {
	case problem != "" && v.secret:
		resp.Diagnostics.AddError(v.summary, problem)
	case problem != "":
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, problem)
	}
}

func apiKeyValidator() validator.String {
	return stringCheck{summary: "Invalid API key in the provider's api_key", description: "must be shaped <prefix>_<secret>", check: apiKeyProblem, secret: true}
}

func domainValidator() validator.String {
	return stringCheck{summary: "Invalid domain", description: "must be a hostname only", check: domainProblem}
}

func pagePathValidator() validator.String {
	return stringCheck{summary: "Invalid page path", description: "must be a page path relative to the site root", check: pagePathProblem}
}

func durationValidator(minimum time.Duration) validator.String {
	return stringCheck{
		summary:     "Invalid duration",
		description: "must be a duration of at least " + duration.Written(minimum),
		check:       func(s string) string { return durationProblem(s, minimum) },
	}
}

func identifierValidator(kind, example string) validator.String {
	return stringCheck{summary: "Invalid " + kind, description: "must be a " + kind + ": " + client.IDShape,
		check: func(s string) string { return identifierProblem(kind, example, s) }}
}

// The ids a configuration names, each with an example from the dashboard.
func exportJobIDValidator() validator.String {
	return identifierValidator("job id", exportJobIDExample)
}

const exportJobIDExample = "se_3f9a2c1b8e7d4a06"

func agentJobIDValidator() validator.String {
	return identifierValidator("job id", "aj_3f9a2c1b8e7d4a06")
}

func projectIDValidator() validator.String {
	return identifierValidator("project id", "proj_0123456789")
}

func notBlankValidator() validator.String {
	return stringCheck{summary: "Invalid value", description: "must not be empty", check: func(s string) string {
		if strings.TrimSpace(s) == "" {
			return "The value is empty or blank. Accepted: a non-empty identifier, or leave the attribute out."
		}
		return ""
	}}
}

// baseURLValidator errors on unusable URLs and warns on unencrypted remote ones.
type baseURLValidator struct{}

func (baseURLValidator) Description(context.Context) string {
	return "must be an absolute http(s) URL with a host, no query or fragment, and no API version such as /v1 at the end of its path"
}
func (v baseURLValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (baseURLValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	problem, warning := baseURLProblem(req.ConfigValue.ValueString())
	switch {
	case problem != "" && strings.Contains(req.ConfigValue.ValueString(), "@"):
		// No attribute path, like apiKeyValidator: Terraform would print the
		// configuration line, and with it the credentials.
		resp.Diagnostics.AddError("Invalid base URL in the provider's base_url", problem)
	case problem != "":
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid base URL", problem)
	}
	if warning != "" {
		resp.Diagnostics.AddAttributeWarning(req.Path, "Unencrypted base URL", warning)
	}
}

// sha256Problem is the one rule for a SHA-256 a user writes: 64 hexadecimal
// digits, in either case (sha256sum writes lower case, some tools upper);
// what reads one compares or stores it in lower case. A long value is not
// shown: it may be a link pasted by mistake, signature and all.
func sha256Problem(s string) string {
	const accepted = "Accepted: 64 hexadecimal digits, such as the output of sha256sum or docsadmin_static_export.docs.archive_sha256, without a file name or prefix."
	shown := fmt.Sprintf("%q", s)
	if len(s) > 80 {
		shown = fmt.Sprintf("a value of %d characters", len(s))
	}
	switch {
	case s == "":
		return "The value is empty: it is not a SHA-256. " + accepted
	case len(s) != 64 && strings.Trim(s, "0123456789abcdefABCDEF") == "":
		return fmt.Sprintf("%s is not a SHA-256: it has %d hexadecimal digits, not 64. %s", shown, len(s), accepted)
	case strings.Trim(s, "0123456789abcdefABCDEF") != "":
		return fmt.Sprintf("%s is not a SHA-256: it is not all hexadecimal digits. %s", shown, accepted)
	}
	return ""
}

// maxEndpointBytes bounds an S3 endpoint as a link state keeps is bounded.
const maxEndpointBytes = 2 << 10

// endpointProblem is the rule of an S3 endpoint: the shape of any link
// (redact.LinkShape: printable ASCII, http or https, a host, no user
// information, since credentials come from the environment), naming where
// requests go and so without a query or fragment. The endpoint is quoted
// only when it may carry no credentials.
func endpointProblem(e string) string {
	problem := redact.LinkShape(e, maxEndpointBytes, "https", "http")
	if u, err := url.Parse(e); problem == "" && err == nil && (u.RawQuery != "" || u.ForceQuery || u.Fragment != "") {
		problem = "it holds a query or a fragment"
	}
	switch {
	case problem == "":
		return ""
	case strings.Contains(e, "@") || len(e) > maxEndpointBytes:
		return fmt.Sprintf("the endpoint (%d characters, not shown as it may carry credentials): %s", len(e), problem)
	}
	return fmt.Sprintf("%q: %s", e, problem)
}
