package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

// timeoutName is an attribute of a timeouts block.
type timeoutName string

const (
	timeoutCreate timeoutName = "create"
	timeoutRead   timeoutName = "read"
	timeoutUpdate timeoutName = "update"
)

// String names the attribute as a user writes it in a message.
func (n timeoutName) String() string { return "timeouts." + string(n) }

// beginOperation is begin for an operation bounded by the timeouts block
// (a create, read, update or delete of a resource, a read of a data
// source): it also reads the operation's limit (limitOf, such as
// plan.Timeouts.Create, with def when unset). It is the one place that
// reads a timeouts block's value, for every bounded operation: a test
// (TestOnlyBeginOperationReadsTimeouts) holds every other file to handing
// it the block's method.
func beginOperation(ctx context.Context, data *providerData, consequence string,
	limitOf func(context.Context, time.Duration) (time.Duration, diag.Diagnostics), def time.Duration,
	diags *diag.Diagnostics) (context.Context, time.Duration, bool) {
	ctx, ok := begin(ctx, data, consequence, diags)
	if !ok {
		return ctx, 0, false
	}
	limit, d := limitOf(ctx, def)
	diags.Append(d...)
	return ctx, limit, !diags.HasError()
}

// pollPolicy is the provider's polling policy for one kind of wait.
func (d *providerData) pollPolicy(knownStatuses []string) poll.Policy {
	p := d.policy
	p.Clock = d.clock
	p.KnownStatuses = knownStatuses
	p.Log = tflogLogger{}.Debug
	// A quick look at a new job costs a request: spend it only while
	// requests are not paced.
	p.QuickLook = d.client != nil && !d.client.Paced()
	return p
}

// statusLog writes one INFO record when a wait sees its first status and one
// at each change after it. Terraform shows only "Still creating..." during an
// export that may take an hour, and every poll is logged at DEBUG, which
// drowns the few changes that matter: TF_LOG=INFO shows these alone.
type statusLog struct {
	subject string // e.g. "export job se_1"
	fields  map[string]any
	now     func() time.Time
	start   time.Time
	last    string
	seen    bool
}

// statusLog starts the log of a wait on subject; fields go in every record.
func (d *providerData) statusLog(subject string, fields map[string]any) *statusLog {
	return &statusLog{subject: subject, fields: fields, now: d.clock.Now, start: d.clock.Now()}
}

// note records obs, logging it if its status is new.
func (l *statusLog) note(ctx context.Context, obs poll.Observation) {
	if l.seen && obs.Status == l.last {
		return
	}
	fields := map[string]any{"status": obs.Status, "waited": duration.Written(l.now().Sub(l.start).Round(time.Second))}
	maps.Copy(fields, l.fields)
	msg := fmt.Sprintf("%s is %s", l.subject, shownStatus(obs.Status))
	if l.seen {
		fields["previous_status"] = l.last
		msg = fmt.Sprintf("%s is now %s (was %s)", l.subject, shownStatus(obs.Status), shownStatus(l.last))
	}
	if obs.Progress != nil {
		fields["progress"] = *obs.Progress
	}
	for _, c := range obs.Counts {
		fields[c.Thing+"_count"] = c.N
	}
	l.seen, l.last = true, obs.Status
	tflog.Info(ctx, msg, fields)
}

func shownStatus(s string) string {
	if s == "" {
		return "without a status"
	}
	return s
}

// waitFailure words a wait that ended before its final state, for every
// resource and data source that waits.
type waitFailure struct {
	subject     string        // what was awaited, e.g. "export job se_1"
	timeout     fmt.Stringer  // the attribute that bounds the wait, such as timeoutRead
	limit       time.Duration // its value
	onTimeout   string        // what to do when the limit was reached
	onInterrupt string        // what to do after an interrupt; may be empty
	// onGone says what to do when the API says the subject does not
	// exist: a sentence that follows gone's.
	onGone string
	// call is what each poll does, such as "generating a link for export
	// job se_1"; empty, "reading <subject>".
	call string
}

// describe words any error that ended the wait, in one shape for every
// wait: its own end (explain), the API saying that the subject does not
// exist (onGone), or a call that failed.
func (w waitFailure) describe(err error) string {
	if text, ok := w.explain(err); ok {
		return text
	}
	if client.IsNotFound(err) {
		return gone(w.subject, err) + " " + w.onGone
	}
	call := w.call
	if call == "" {
		call = "reading " + w.subject
	}
	return fmt.Sprintf("%s failed: %s", call, withHint(err))
}

// gone is the one wording of an object that the API, asked where the object
// was made, says does not exist (client.IsNotFound): a sentence, which the
// caller follows with what happens now or what to do.
func gone(subject string, err error) string {
	return fmt.Sprintf("The API says there is no %s (%s).", subject, err)
}

// goneFromState words a resource that leaves state because of it: the
// summary and the detail, whose last sentence, next, says what the next
// apply does.
func goneFromState(subject, next string, err error) (string, string) {
	return "Removed from state: the API says it no longer exists", gone(subject, err) + " It is removed from state; " + next
}

// explain describes err when it ended the wait itself: the limit was reached,
// Terraform interrupted it, too many polls failed in a row, or the subject
// ended with a status the provider does not know. It reports
// false for any other error, which the caller words.
func (w waitFailure) explain(err error) (string, bool) {
	var timeout *poll.TimeoutError
	var budget *poll.ErrorBudgetError
	var ended *unknownEndError
	switch {
	case errors.As(err, &ended):
		return ended.Error() + ".", true
	case errors.As(err, &timeout) && errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("waiting for %s timed out after %s (limit %s = %s); last seen: %s%s. %s",
			w.subject, duration.Written(timeout.Waited.Round(time.Second)), w.timeout, duration.Written(w.limit), lastSeen(timeout.Last, timeout.Seen), lastFailure(timeout.LastErr), w.onTimeout), true
	case errors.As(err, &timeout):
		text := fmt.Sprintf("waiting for %s was interrupted after %s; last seen: %s",
			w.subject, duration.Written(timeout.Waited.Round(time.Second)), lastSeen(timeout.Last, timeout.Seen))
		if w.onInterrupt != "" {
			text += ". " + w.onInterrupt
		}
		return text, true
	case errors.As(err, &budget):
		return fmt.Sprintf("reading %s failed %d times in a row over %s; last seen: %s; last error: %s",
			w.subject, budget.Errors, duration.Written(budget.Waited.Round(time.Second)), lastSeen(budget.Last, budget.Seen), withHint(budget.Err)), true
	}
	return "", false
}

// lastFailure names the reason the last poll failed, when it failed for a
// reason of its own and not because the wait ended.
func lastFailure(err error) string {
	if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return ""
	}
	return "; the last poll failed: " + clause(withHint(err))
}

func lastSeen(obs poll.Observation, seen bool) string {
	if !seen {
		return "nothing (no poll succeeded)"
	}
	return obs.Describe()
}

// transientOrPermanent marks a failed poll: errors worth trying again later
// count against the wait's error budget, any other ends the wait.
func transientOrPermanent(err error) error {
	if client.IsTransient(err) {
		return err
	}
	return poll.Permanent(err)
}

// validateTimeouts refuses values under 1 s in a configuration's
// timeouts block: the block itself only checks that they parse, and a wait
// with no time left would fail at apply with a misleading error.
// Block is the timeouts.Value of a resource or of a data source.
func validateTimeouts[Block interface {
	IsNull() bool
	IsUnknown() bool
	Attributes() map[string]attr.Value
}](ctx context.Context, config tfsdk.Config) diag.Diagnostics {
	var block Block
	diags := config.GetAttribute(ctx, path.Root("timeouts"), &block)
	if diags.HasError() || block.IsNull() || block.IsUnknown() {
		return diags
	}
	for name, value := range block.Attributes() {
		s, ok := value.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		// A value that does not parse is reported by the timeouts block itself.
		if d, err := time.ParseDuration(s.ValueString()); err == nil && d < time.Second {
			diags.AddAttributeError(path.Root("timeouts").AtName(name), "Invalid timeout",
				timeoutName(name).String()+": "+durationProblem(s.ValueString(), time.Second))
		}
	}
	return diags
}
