package provider

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
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

// baseURLProblem returns an error for an unusable URL and a warning for one
// that would send the key unencrypted over a network.
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

var hostnameLabel = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

// domainProblem accepts a bare hostname, as the export endpoint requires.
func domainProblem(domain string) string {
	const accepted = "Accepted: a hostname only, such as docs.example.com (no scheme, port, path, trailing slash or spaces)."
	quoted := fmt.Sprintf("%q", domain)
	switch {
	case domain == "":
		return "The domain is empty. " + accepted
	case strings.TrimSpace(domain) != domain || strings.ContainsAny(domain, " \t\r\n"):
		return quoted + " contains spaces. " + accepted
	case strings.Contains(domain, "://"):
		return quoted + " contains a scheme. " + accepted
	case strings.HasSuffix(domain, "/"):
		return quoted + " ends with a slash. " + accepted
	case strings.Contains(domain, "/"):
		return quoted + " contains a path. " + accepted
	case strings.Contains(domain, ":"):
		return quoted + " contains a port. " + accepted
	case len(domain) > 253:
		return fmt.Sprintf("The domain is %d characters long; a hostname has at most 253. %s", len(domain), accepted)
	}
	for _, label := range strings.Split(domain, ".") {
		if !hostnameLabel.MatchString(label) {
			return quoted + " is not a valid hostname: each dot-separated label must be 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen. " + accepted
		}
	}
	return ""
}

// pagePathProblem accepts a page path relative to the site root.
func pagePathProblem(p string) string {
	const accepted = "Accepted: a page path relative to the site root, such as index or guides/getting-started."
	quoted := fmt.Sprintf("%q", p)
	switch {
	case strings.TrimSpace(p) == "":
		return "A page path is empty. " + accepted
	case strings.ContainsAny(p, " \t\r\n"):
		return quoted + " contains spaces. " + accepted
	case strings.Contains(p, "://"):
		return quoted + " contains a scheme and host; give only the path. " + accepted
	case strings.HasPrefix(p, "//"):
		return quoted + " starts with a host. " + accepted
	case strings.HasPrefix(p, "/"):
		return quoted + " starts with a slash. " + accepted
	case strings.ContainsAny(p, "?#"):
		return quoted + " contains a query or fragment. " + accepted
	case len(p) > 1024:
		return fmt.Sprintf("A page path is %d characters long; at most 1024 are accepted.", len(p))
	case strings.Contains(p, `\`):
		return quoted + " contains a backslash; separate segments with '/'. " + accepted
	}
	for _, segment := range strings.Split(strings.TrimRight(p, "/"), "/") {
		if segment == "" || segment == "." || segment == ".." {
			return quoted + " has an empty, '.' or '..' segment. " + accepted
		}
	}
	return ""
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
		return fmt.Sprintf("%q is below the minimum of %s. Accepted: a duration of at least %s, such as 30s, 15m or 2h.", s, minimum, minimum)
	}
	return ""
}

// identifierProblem accepts an identifier that can stand as one segment of
// a request path: the API's ids are opaque, so only what cannot be one is
// refused. kind names it ("job id"), example shows one.
func identifierProblem(kind, example, id string) string {
	accepted := fmt.Sprintf("Accepted: a %s as shown on the dashboard, such as %s, without spaces, slashes, '?', '#' or '%%'.", kind, example)
	switch {
	case strings.TrimSpace(id) == "":
		return fmt.Sprintf("The %s is empty or blank. %s", kind, accepted)
	case id == "." || id == "..":
		return fmt.Sprintf("%q is not a %s. %s", id, kind, accepted)
	case strings.ContainsAny(id, " \t\r\n"):
		return fmt.Sprintf("%q contains spaces. %s", id, accepted)
	case strings.ContainsAny(id, "/\\?#%"):
		return fmt.Sprintf("%q contains a character that cannot appear in a %s. %s", id, kind, accepted)
	case len(id) > 256:
		return fmt.Sprintf("The %s is %d characters long; at most 256 are accepted.", kind, len(id))
	}
	return ""
}

// stringCheck adapts one of the checks above to a plan-time validator.
type stringCheck struct {
	summary     string
	description string
	check       func(string) string
}

func (v stringCheck) Description(context.Context) string         { return v.description }
func (v stringCheck) MarkdownDescription(context.Context) string { return v.description }

func (v stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if problem := v.check(req.ConfigValue.ValueString()); problem != "" {
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, problem)
	}
}

// apiKeyValidator reports without an attribute path on purpose: Terraform
// prints the configuration line of an attribute's error, which would show a
// key written literally in the configuration.
type apiKeyValidator struct{}

func (apiKeyValidator) Description(context.Context) string { return "must be shaped <prefix>_<secret>" }
func (v apiKeyValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (apiKeyValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if problem := apiKeyProblem(req.ConfigValue.ValueString()); problem != "" {
		resp.Diagnostics.AddError("Invalid API key in the provider's api_key", problem)
	}
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
		description: fmt.Sprintf("must be a duration of at least %s", minimum),
		check:       func(s string) string { return durationProblem(s, minimum) },
	}
}

func identifierValidator(kind, example string) validator.String {
	return stringCheck{summary: "Invalid " + kind, description: "must be a " + kind + " without spaces or slashes",
		check: func(s string) string { return identifierProblem(kind, example, s) }}
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
	return "must be an absolute http(s) URL with a host and no query or fragment"
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
