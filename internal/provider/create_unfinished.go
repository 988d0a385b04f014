package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// privateCreateFinished marks, in a resource's private state, a create that
// saw the deployment, build or job it started end (or had nothing to wait
// for). Delete offers what a create started to the replacement only without
// this mark: Terraform plans a tainted object, such as one whose create timed
// out, without its private state, while `terraform apply -replace` of an
// object whose create finished keeps it and so starts anew.
const privateCreateFinished = "create_finished"

// markCreateFinished records that the create saw its work end.
func markCreateFinished(ctx context.Context, private privateSetter) diag.Diagnostics {
	return private.SetKey(ctx, privateCreateFinished, []byte("true"))
}

// createFinished reports a create that saw its work end.
func createFinished(ctx context.Context, private privateGetter) bool {
	if private == nil {
		return false
	}
	raw, _ := private.GetKey(ctx, privateCreateFinished)
	return string(raw) == "true"
}
