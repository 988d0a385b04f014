package provider

import (
	"net/url"
	"strings"
	"testing"
	"unicode"
)

// Fuzz targets for the plan-time checks of domain and paths: whatever they
// accept must be something the export endpoint takes (as the mock API plays it), and whatever they refuse must be explained together
// with what would be accepted.
//
//	go test -run='^$' -fuzz='^FuzzDomainProblem$' -fuzztime=10s ./internal/provider/

func FuzzDomainProblem(f *testing.F) {
	for _, s := range []string{
		"docs.example.com", "localhost", "a", "xn--dks-sna.example.com", "DOCS.Example.COM", "1.2.3.4",
		"", " ", "docs.example.com ", "https://docs.example.com", "docs.example.com/", "docs.example.com/guides",
		"docs.example.com:8443", "[::1]", "docs..example.com", ".docs.example.com", "docs.example.com.",
		"-docs.example.com", "docs-.example.com", "docs_site.example.com", "dóks.example.com", "docs\u00a0example.com",
		"docs.example.com\n", "docs.example.com?x=1", "admin@docs.example.com", "docs.exa%6dple.com",
		strings.Repeat("a", 63) + ".com", strings.Repeat("a", 64) + ".com",
		strings.Repeat(strings.Repeat("a", 63)+".", 4)[:253], strings.Repeat(strings.Repeat("a", 63)+".", 4)[:254],
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, domain string) {
		problem := domainProblem(domain)
		if problem != "" {
			if !strings.Contains(problem, "Accepted:") {
				t.Fatalf("domainProblem(%q) = %q: it does not say what is accepted", domain, problem)
			}
			return
		}
		switch {
		case len(domain) == 0 || len(domain) > 253:
			t.Fatalf("accepted %q, %d characters long", domain, len(domain))
		case strings.ContainsAny(domain, "/:@?#%[]\\"):
			t.Fatalf("accepted %q, which holds URL syntax", domain)
		case strings.ContainsFunc(domain, unicode.IsSpace):
			t.Fatalf("accepted %q, which holds spaces", domain)
		case strings.ContainsFunc(domain, func(r rune) bool { return r > unicode.MaxASCII }):
			t.Fatalf("accepted %q, which is not ASCII (IDNs are sent in their xn-- form)", domain)
		}
		for _, label := range strings.Split(domain, ".") {
			if len(label) < 1 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
				t.Fatalf("accepted %q, whose label %q is not a hostname label", domain, label)
			}
			for _, r := range label {
				if !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
					t.Fatalf("accepted %q, whose label %q holds %q", domain, label, r)
				}
			}
		}
		// Used as the host of a URL, it must read back unchanged.
		if u, err := url.Parse("https://" + domain + "/"); err != nil || u.Host != domain || u.Path != "/" {
			t.Fatalf("accepted %q, which does not stand alone as a URL's host", domain)
		}
	})
}

func FuzzPagePathProblem(f *testing.F) {
	for _, s := range []string{
		"index", "guides/getting-started", "guides/intro.html", "api-reference/v2/endpoints", "guides/",
		"", " ", "/index", "//cdn.example.com/index", "https://docs.example.com/index", "guides/intro?lang=en",
		"guides/intro#setup", "guides/\tintro", "guides intro", "guides/../admin", "./index", "guides//intro",
		"..", ".", `guides\intro`, strings.Repeat("a", 1024), strings.Repeat("a", 1025),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		problem := pagePathProblem(p)
		if problem != "" {
			if !strings.Contains(problem, "ccepted") {
				t.Fatalf("pagePathProblem(%q) = %q: it does not say what is accepted", p, problem)
			}
			return
		}
		switch {
		case strings.TrimSpace(p) == "":
			t.Fatalf("accepted the blank path %q", p)
		case len(p) > 1024:
			t.Fatalf("accepted a path of %d characters", len(p))
		case strings.ContainsAny(p, " \t\r\n"):
			t.Fatalf("accepted %q, which holds spaces", p)
		case strings.HasPrefix(p, "/"):
			t.Fatalf("accepted %q, which is not relative to the site root", p)
		case strings.Contains(p, "://") || strings.ContainsAny(p, "?#"):
			t.Fatalf("accepted %q, which is a URL rather than a page path", p)
		case strings.Contains(p, `\`):
			t.Fatalf("accepted %q, whose backslash the API refuses in a page path", p)
		}
		// The API refuses empty, "." and ".." segments ("bad path entries"):
		// accepting them would fail the apply instead of the plan.
		for _, segment := range strings.Split(strings.TrimRight(p, "/"), "/") {
			if segment == "" || segment == "." || segment == ".." {
				t.Fatalf("accepted %q, whose segment %q the API refuses", p, segment)
			}
		}
	})
}

// An S3 endpoint follows the one rule of a link's shape, and names where
// requests go: never a query, and never credentials, which are not quoted.
func TestEndpointProblem(t *testing.T) {
	for _, ok := range []string{"https://s3.example.com", "http://127.0.0.1:7070", "https://minio.internal:9000/"} {
		if p := endpointProblem(ok); p != "" {
			t.Errorf("endpointProblem(%q) = %q", ok, p)
		}
	}
	for bad, want := range map[string]string{
		"ftp://x":                           `"ftp://x": its scheme is "ftp"`,
		"https://":                          "names no host",
		"https://s3.example.com/?x=1":       "query or a fragment",
		"https://s3.example.com/#top":       "query or a fragment",
		"https://s3.exämple.com":            "outside printable ASCII",
		"https://key:s3cr3t@s3.example.com": "not shown as it may carry credentials",
		"https://s3.example.com/" + strings.Repeat("a", maxEndpointBytes): "more than the 2048 accepted",
	} {
		p := endpointProblem(bad)
		if !strings.Contains(p, want) || strings.Contains(p, "s3cr3t") {
			t.Errorf("endpointProblem(%.60q) = %.200q, want it to say %q and no credential", bad, p, want)
		}
	}
}
