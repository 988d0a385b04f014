package client_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The client speaks HTTP to the API and nothing else: the provider words
// errors in terms of its settings and of Terraform. A linter sees imports,
// not strings, so this reads the package's sources.
const modulePath = "github.com/docsadmin/terraform-provider-docsadmin/"

func TestClientSourcesDoNotSpeakTerraform(t *testing.T) {
	words := []string{
		"api_key", "DOCSADMIN_", "requests_per_second", "max_concurrent_requests", "max_retries",
		"base_url", "project_id", "-parallelism", "terraform",
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		// Import paths name the module, which is no wording of the client's.
		text := strings.ToLower(strings.ReplaceAll(string(data), modulePath, ""))
		for _, word := range words {
			if strings.Contains(text, strings.ToLower(word)) {
				t.Errorf("%s mentions %q: the client must not know the provider's settings or Terraform", name, word)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no sources found to check")
	}
}
