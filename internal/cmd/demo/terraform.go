package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// demoVersion is the version of the demo's build: a prerelease, which the
// configuration asks for exactly (tfrunner.PinVersion).
const demoVersion = "0.0.0-demo"

// setup finds Terraform, builds the provider and packs it into a filesystem
// mirror in the temporary directory, as a release would be, and writes the
// CLI configuration that installs it from there.
func (d *demo) setup(ctx context.Context) (*tfrunner.Runner, error) {
	start := time.Now()
	fmt.Fprintln(d.stdout, "Building the provider with go build: the first build compiles the plugin framework and its modules (a few minutes); later ones take seconds")
	stop := heartbeat(d.stdout, "building the provider", progressEvery)
	runner, version, err := tfrunner.SetupMirror(ctx, d.opts.terraform, d.tmp, demoVersion)
	stop()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(d.stdout, "Terraform %s (%s)\n", version, runner.Path())
	fmt.Fprintf(d.stdout, "Built the provider (version %q) into a filesystem mirror in %s; CLI config %s\n",
		demoVersion, time.Since(start).Round(100*time.Millisecond), runner.CLIConfig())
	return runner, nil
}

// apply copies the example into the working directory and runs terraform
// apply there, with its output shown as it comes.
func (d *demo) apply(ctx context.Context, runner *tfrunner.Runner) error {
	files, err := tfrunner.ModuleFiles(exampleDir)
	if err != nil {
		return err
	}
	workDir := filepath.Join(d.tmp, "work")
	if d.tf, err = runner.Module(workDir, files, map[string]string{
		"DOCSADMIN_BASE_URL":   d.mock.URL,
		"DOCSADMIN_API_KEY":    d.mock.APIKey,
		"DOCSADMIN_PROJECT_ID": demoProject,
	}); err != nil {
		return err
	}
	fmt.Fprintf(d.stdout, "Copied %s/*.tf to %s; DOCSADMIN_BASE_URL=%s, DOCSADMIN_API_KEY=(mock key), DOCSADMIN_PROJECT_ID=%s\n",
		exampleDir, workDir, d.mock.URL, demoProject)
	if err := runner.Init(ctx, workDir, d.stdout, d.stderr); err != nil {
		return fmt.Errorf("%w%s", err, stopped(ctx))
	}
	d.tf.SetStdout(d.stdout)
	d.tf.SetStderr(d.stderr)
	defer func() { // later commands print nothing: the outputs hold the link
		d.tf.SetStdout(nil)
		d.tf.SetStderr(nil)
	}()
	if err := d.tf.Apply(ctx); err != nil {
		// The lines after the first repeat Terraform's stderr, shown above.
		first, _, _ := strings.Cut(err.Error(), "\n")
		return fmt.Errorf("terraform apply: %s%s", first, stopped(ctx))
	}
	return nil
}

func (d *demo) destroy(ctx context.Context) error {
	if err := d.tf.Destroy(ctx); err != nil {
		return fmt.Errorf("terraform destroy: %w%s", err, stopped(ctx))
	}
	d.destroyed = true
	fmt.Fprintln(d.stdout, "terraform destroy: done (the export job is forgotten; the API cannot delete exports).")
	return nil
}

// stopped says why a command was cut short, if it was.
func stopped(ctx context.Context) string {
	if ctx.Err() == nil {
		return ""
	}
	return fmt.Sprintf(" (stopped: %v)", context.Cause(ctx))
}

// outputs are the example's outputs the demo uses; a number the API did not
// report is null.
type outputs struct {
	JobID       string `json:"job_id"`
	APIRevision string `json:"api_revision"`
	Status      string `json:"status"`
	ExpiresAt   string `json:"bundle_expires_at"`
	BundleURL   string `json:"bundle_url"`
	PageCount   *int64 `json:"page_count"`
	BundleSize  *int64 `json:"bundle_size_bytes"`
}

// readOutputs reads `terraform output -json`. The bundle link is in it
// (sensitive outputs are included) and must never be printed whole.
func (d *demo) readOutputs(ctx context.Context) (outputs, error) {
	var out outputs
	all, err := tfrunner.Outputs(ctx, d.tf, &out)
	if err != nil {
		return out, err
	}
	switch {
	case out.JobID == "" || out.BundleURL == "":
		return out, errors.New("output job_id or bundle_url is missing or empty")
	case !all["bundle_url"].Sensitive:
		return out, fmt.Errorf("output bundle_url must be declared with sensitive = true in %s", exampleDir)
	case out.Status != "completed":
		return out, fmt.Errorf("the export's status is %q, expected completed", out.Status)
	}
	return out, nil
}

func (d *demo) printSummary(o outputs) {
	w := d.stdout
	reported := func(n *int64) any {
		if n == nil {
			return "(not reported)"
		}
		return *n
	}
	expires := "(unknown)"
	if t, err := time.Parse(time.RFC3339, o.ExpiresAt); err == nil {
		expires = fmt.Sprintf("%s (in %s)", o.ExpiresAt, time.Until(t).Round(time.Second))
	} else if o.ExpiresAt != "" {
		expires = o.ExpiresAt
	}
	fmt.Fprintf(w, "  job id:        %s\n  api revision:  %s\n  status:        %s\n", o.JobID, o.APIRevision, o.Status)
	fmt.Fprintf(w, "  page count:    %v\n  bundle bytes:  %v\n", reported(o.PageCount), reported(o.BundleSize))
	fmt.Fprintf(w, "  link expires:  %s\n", expires)
	fmt.Fprintf(w, "  bundle link:   %s\n", bundlelink.Redact(o.BundleURL))
	fmt.Fprintln(w, "                 (a sensitive output: the signature is redacted here; run with -keep to read it with terraform output -raw bundle_url)")
	fmt.Fprintf(w, "Mock API: %d export(s) started for %s, %d bundle link(s) generated for %s.\n",
		d.mock.ExportsStarted(demoDomain), demoDomain, d.mock.BundlesGenerated(o.JobID), o.JobID)
}

// progressEvery is how often a long step says that it still runs.
const progressEvery = 30 * time.Second

// heartbeat says on w, every interval, that what still runs and for how
// long, until stop is called, so that a build of minutes does not look
// stuck.
func heartbeat(w io.Writer, what string, every time.Duration) (stop func()) {
	start := time.Now()
	done := make(chan struct{})
	var beating sync.WaitGroup
	beating.Go(func() {
		ticker := time.NewTicker(every)
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				fmt.Fprintf(w, "... still %s (%s)\n", what, duration.Written(time.Since(start).Round(time.Second)))
			}
		}
	})
	return func() {
		close(done)
		beating.Wait()
	}
}
