package provider

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish"
)

// Private state: what a resource records that its schema does not show. Each
// key is declared, written and read here, as JSON, and nowhere else
// (TestPrivateStateKeysLiveInPrivateStateGo).

// privateGetter is the read side of a resource's private state.
type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// privateSetter is the write side of a resource's private state.
type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

const (
	// privateCreateCompleted marks a create that saw the deployment, build
	// or job it started end (or had nothing to wait for). Delete registers
	// what a create started for the replacement (resume.go) only without
	// this mark: Terraform plans a tainted object, such as one whose create
	// timed out, without its private state, while `terraform apply
	// -replace` of an object whose create completed keeps it and so starts
	// anew.
	privateCreateCompleted = "create_completed"
	// privateBundleIssuedAt is when the link in state was issued, so that
	// the default renewal window is capped at half the link's lifetime and
	// an explicit one that outlasts it draws a warning.
	privateBundleIssuedAt = "bundle_issued_at"
	// privateImported marks a state written by an import that no apply has
	// updated yet.
	privateImported = "imported"
	// privateBundleLink holds what the ephemeral resource's Renew needs to
	// know about the link it opened (openedLink).
	privateBundleLink = "bundle_link"
	// privatePlace records, in a resource's private state, where the object was
	// made: the API's address (base_url) and, where its route holds one, the
	// project. The object is read there, and only an answer from there may say
	// that it is gone: a base_url or project_id that now points elsewhere (a
	// typo, a staging API) never drops it.
	privatePlace = "made_at"
	// privateSiteStore records what a docsadmin_static_site trusts on disk
	// beside what its state pins: the store it published from, by its
	// identity (a destroy removes that store and no other), and the SHA-256
	// of the stat record of the release it published (a refresh trusts the
	// stat data of that record only).
	privateSiteStore = "site_store"
)

func setPrivateJSON(ctx context.Context, private privateSetter, key string, v any) diag.Diagnostics {
	if private == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Cannot record private state", err.Error())
		return diags
	}
	return private.SetKey(ctx, key, data)
}

// getPrivateJSON reads key into v, and leaves v as it is when the key is
// absent or unreadable.
func getPrivateJSON(ctx context.Context, private privateGetter, key string, v any) {
	if private == nil {
		return
	}
	if raw, _ := private.GetKey(ctx, key); len(raw) > 0 {
		_ = json.Unmarshal(raw, v)
	}
}

// markCreateCompleted records that the create saw its work end.
func markCreateCompleted(ctx context.Context, private privateSetter) diag.Diagnostics {
	return setPrivateJSON(ctx, private, privateCreateCompleted, true)
}

// createCompleted reports a create that saw its work end.
func createCompleted(ctx context.Context, private privateGetter) bool {
	var completed bool
	getPrivateJSON(ctx, private, privateCreateCompleted, &completed)
	return completed
}

func recordBundleIssued(ctx context.Context, private privateSetter, at time.Time) diag.Diagnostics {
	return setPrivateJSON(ctx, private, privateBundleIssuedAt, at.UTC().Format(time.RFC3339))
}

func bundleIssuedAt(ctx context.Context, private privateGetter) *time.Time {
	var issued string
	getPrivateJSON(ctx, private, privateBundleIssuedAt, &issued)
	t, err := time.Parse(time.RFC3339, issued)
	if err != nil {
		return nil
	}
	return &t
}

// markImported records that an import wrote the state; forgetImported,
// that an apply compared it with the configuration.
func markImported(ctx context.Context, private privateSetter) diag.Diagnostics {
	return setPrivateJSON(ctx, private, privateImported, true)
}

func forgetImported(ctx context.Context, private privateSetter) diag.Diagnostics {
	return private.SetKey(ctx, privateImported, nil)
}

// wasImported reports a state that an import wrote and no apply has
// compared with the configuration yet.
func wasImported(ctx context.Context, private privateGetter) bool {
	var imported bool
	getPrivateJSON(ctx, private, privateImported, &imported)
	return imported
}

// recordPlace records where an object was made.
func recordPlace(ctx context.Context, private privateSetter, p apiPlace) diag.Diagnostics {
	return setPrivateJSON(ctx, private, privatePlace, p)
}

// recordedPlace is where the object was made, or nil when private state
// holds none (an import, or a state whose private data was lost): its first
// read at the configured place records it.
func recordedPlace(ctx context.Context, private privateGetter) *apiPlace {
	var p apiPlace
	getPrivateJSON(ctx, private, privatePlace, &p)
	if p.BaseURL == "" {
		return nil
	}
	return &p
}

// sitePins are what a site recorded of its store when it published (see
// privateSiteStore). Zero when private state holds none (its data was
// lost): the store is then known by its name only, and every file is read.
type sitePins struct {
	Store      publish.StoreID `json:"store"`
	StatSHA256 string          `json:"stat_sha256,omitempty"`
}

func recordSitePins(ctx context.Context, private privateSetter, p sitePins) diag.Diagnostics {
	return setPrivateJSON(ctx, private, privateSiteStore, p)
}

func recordedSitePins(ctx context.Context, private privateGetter) sitePins {
	var p sitePins
	getPrivateJSON(ctx, private, privateSiteStore, &p)
	return p
}

// openedLink is what docsadmin_static_export_bundle's Open records of the
// link it opened, for its Renew.
type openedLink struct {
	JobID     string `json:"job_id"`
	ExpiresAt string `json:"expires_at,omitempty"`
}

func recordOpenedLink(ctx context.Context, private privateSetter, link openedLink) diag.Diagnostics {
	return setPrivateJSON(ctx, private, privateBundleLink, link)
}

func recordedOpenedLink(ctx context.Context, private privateGetter) openedLink {
	var link openedLink
	getPrivateJSON(ctx, private, privateBundleLink, &link)
	return link
}
