package provider

import (
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Conversions of the client's values into schema values, shared by every
// resource and data source.

// timeValue is a time the API reported, in RFC 3339 and UTC; null when it
// did not report one.
func timeValue(t *time.Time) types.String {
	if t == nil {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}

// optionalString is null for an empty string: a value the API left out.
func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
