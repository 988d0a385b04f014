package provider

import "testing"

// Two base URLs name the same API when they differ only in how an address
// may be written.
func TestSameAPI(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"https://api.example.com", "https://API.Example.com/", true},
		{"https://api.example.com", "https://api.example.com:443", true},
		{"http://127.0.0.1:80/proxy/", "http://127.0.0.1/proxy", true},
		{"https://api.example.com", "https://staging.api.example.com", false},
		{"https://api.example.com", "http://api.example.com", false},
		{"https://api.example.com", "https://api.example.com:8443", false},
		{"https://api.example.com/docsadmin", "https://api.example.com", false},
		{"http://[::1]:8080", "http://[::1]:8081", false},
	} {
		if got := sameAPI(c.a, c.b); got != c.same {
			t.Errorf("sameAPI(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
