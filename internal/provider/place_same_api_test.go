package provider

import "testing"

// A place recorded at a base URL written another way is at the same API:
// sameAPI compares by client.APIAddress, as every comparison of places.
func TestSameAPI(t *testing.T) {
	for _, c := range []struct {
		recorded, configured string
		same                 bool
	}{
		{"https://api.example.com", "https://API.Example.com/", true},
		{"http://127.0.0.1:80/proxy/", "http://127.0.0.1/proxy", true},
		{"https://api.example.com", "https://staging.api.example.com", false},
		{"https://api.example.com/docsadmin", "https://api.example.com", false},
	} {
		p := apiPlace{BaseURL: c.recorded}
		if got := p.sameAPI(c.configured); got != c.same {
			t.Errorf("apiPlace{%q}.sameAPI(%q) = %v, want %v", c.recorded, c.configured, got, c.same)
		}
		d := &providerData{baseURL: c.configured}
		if got := d.madeAtAnotherAPI(&p); got == c.same {
			t.Errorf("madeAtAnotherAPI(%q) at %q = %v", c.recorded, c.configured, got)
		}
	}
}
