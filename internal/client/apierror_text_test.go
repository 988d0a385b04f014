package client_test

import (
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

// An API error is a clause that a sentence of the provider quotes: the
// API's message loses the period that would end that sentence twice.
func TestAPIErrorIsAClause(t *testing.T) {
	t.Parallel()
	err := &client.APIError{Endpoint: "POST /v1/project/preview/proj_1", StatusCode: 403,
		Message: "Preview deployments are not available on your current plan."}
	want := "POST /v1/project/preview/proj_1: HTTP 403 Forbidden: Preview deployments are not available on your current plan"
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if quoted := "The API refused it: " + err.Error() + ". Ask an administrator."; strings.Contains(quoted, "..") {
		t.Errorf("quoted in a sentence: %q", quoted)
	}
}
