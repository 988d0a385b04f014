// Package provider maps the docsadmin API client onto Terraform: schemas,
// plans, state and diagnostics. It must never read an HTTP status or header
// (it asks client.Classify), show a text from outside except through the
// instance's redact.Sanitizer, remove an object from state unless the place
// that made it says it is gone, or hold logic that does not need the plugin
// framework: that goes to a package below it, and so does state shared
// between requests.
//
// Everything that calls the API begins in begin (provider.go) or
// beginOperation (wait.go): it goes on only without an earlier error and with the
// provider configured, masks secrets in the context's logs (maskSecrets), and
// turns the timeouts block into the operation's limit. A wait logs one INFO
// record per change of status and every poll at DEBUG (statusLog).
//
// Where an object was made is part of it (place.go): exports, agent jobs,
// deployments and previews keep made_at in private state. Under a base_url
// that names another address the object is kept and nothing is sent, with a
// warning that says where it lives and what to do; a move never plans a
// replacement. Every private-state key is declared, written and read in
// private_state.go.
//
// Work a create started reaches state before the wait. When a create times
// out, Terraform taints the resource and the next apply replaces it: Delete
// registers the unfinished work (registerUnfinished) and the replacement's
// Create resumes it (resumeRegistered), rereading it first; work gone or
// unsuccessful starts afresh, and a failed read saves the work in state
// again. What counts as completed differs once: the create-completed mark
// in private state for a deployment, a preview and an agent job, a link in
// state for an export.
//
// An export's link is renewed in a plan, not a refresh: Read computes
// ready_for_renewal, ModifyPlan marks the link unknown when it is due
// (renewalDue), and Update asks for a fresh link to the same job. Create,
// resume, update and import hand a completed export over through
// deliverBundle: a fresh link, the verifying download when no verified
// archive is in state yet, the archive's identity and the link's issue time.
//
// A docsadmin_static_site is owned on disk as well as in state: its store's
// record names the site and the configuration that published it, and a site
// refuses a directory holding anything it did not write or another site's
// store. Refusals known at plan are made at plan; for a site already in
// state they are warnings, so that a destroy's plan never fails. Site claims
// tell overlapping sites of one run apart and which sites this state holds.
// State holds no file: the per-file record of a release, written beside it
// before the switch, holds the stat data a refresh compares first (as git's
// index does, racy case included) and state pins the manifest's SHA-256, so a
// refresh hashes only the files whose stat data changed.
package provider
