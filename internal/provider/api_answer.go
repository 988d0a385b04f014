package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// warnMalformed warns that the answer to a call that acted (what names it)
// had fields of a type or form the client does not read. The call is not
// failed: the server acted, and failing would lose the id of what it
// started, so that the next apply would start it again. Only the fields'
// names appear, never their values.
func warnMalformed(diags *diag.Diagnostics, what string, fields []string) {
	if len(fields) == 0 {
		return
	}
	quoted := make([]string, len(fields))
	for i, f := range fields {
		quoted[i] = fmt.Sprintf("%q", f)
	}
	diags.AddWarning("Unexpected values in the API's answer",
		fmt.Sprintf("The answer to %s had a value of an unexpected type or form in %s, which was ignored; the rest of the answer, the id included, was used. "+
			"The API may have changed: if this persists, report it with the provider's version.", what, strings.Join(quoted, ", ")))
}

// unknownEndError is a deployment or an agent job that says it ended (its
// end time is set) with a status the provider does not know: the wait ends
// at once rather than waiting out its limit for a change that will not
// come. status has been through the provider's sanitizer.
type unknownEndError struct {
	subject string
	status  string
	known   []string // the statuses the API documents
	field   string   // the end time the API set: "endedAt", "archivedAt"
	next    string   // what to do
}

func (e *unknownEndError) Error() string {
	return fmt.Sprintf("%s ended with status \"%s\", which the provider does not know (it knows %s): the API set its %s, so it will not change again. %s",
		e.subject, e.status, strings.Join(e.known, ", "), e.field, e.next)
}
