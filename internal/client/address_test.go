package client_test

import (
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

// Two base URLs name the same API when they differ only in how an address
// may be written.
func TestAPIAddress(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"https://api.example.com", "https://API.Example.com/", true},
		{"https://api.example.com", "https://api.example.com:443", true},
		{"http://127.0.0.1:80/proxy/", "http://127.0.0.1/proxy", true},
		{" https://api.example.com ", "https://api.example.com", true},
		{"http://[::1]", "http://[::1]:80/", true},
		{"https://api.example.com", "https://staging.api.example.com", false},
		{"https://api.example.com", "http://api.example.com", false},
		{"https://api.example.com", "https://api.example.com:8443", false},
		{"https://api.example.com/docsadmin", "https://api.example.com", false},
		{"http://[::1]:8080", "http://[::1]:8081", false},
	} {
		if got := client.APIAddress(c.a) == client.APIAddress(c.b); got != c.same {
			t.Errorf("APIAddress(%q) = %q, APIAddress(%q) = %q: same %v, want %v", c.a, client.APIAddress(c.a), c.b, client.APIAddress(c.b), got, c.same)
		}
	}
}
