// Command demo runs the docsadmin provider end to end, offline: it builds the
// provider, starts the in-memory mock of the administration API on loopback,
// packs it into a filesystem mirror and installs it from there with terraform
// init, as a user installs a release (internal/tfrunner), applies
// examples/demo, prints the export's outputs (the bundle
// link with its signature redacted), downloads and lists the bundle, then
// destroys and cleans up.
//
//	go run ./internal/cmd/demo [-keep] [-export-duration 3s] [-link-ttl 1h] [-timeout 10m] [-api-revision domain|project|both]
//
// Terraform on PATH (or -terraform) and Go are the only prerequisites;
// nothing is fetched from a registry.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

const (
	exampleDir  = "examples/demo"
	demoDomain  = "docs.example.com"
	demoProject = "proj_demo"
)

type options struct {
	keep                             bool
	exportDuration, linkTTL, timeout time.Duration
	terraform                        string
	apiRevision                      string
}

func main() {
	// The interrupt context is cancelled by the first Ctrl-C (or SIGTERM):
	// the demo stops Terraform and cleans up. A second one quits at once,
	// as signals are then no longer caught.
	ictx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ictx.Done()
		stop()
		fmt.Fprintln(os.Stderr, "\ndemo: interrupted: stopping and cleaning up (press Ctrl-C again to quit at once)")
	}()

	switch err := run(ictx, os.Args[1:], os.Stdout, os.Stderr); {
	case err == nil, errors.Is(err, flag.ErrHelp): // -h printed the usage
	case ictx.Err() != nil:
		fmt.Fprintf(os.Stderr, "demo: interrupted: %v\n", err)
		os.Exit(130)
	default:
		fmt.Fprintf(os.Stderr, "\ndemo failed: %v\n", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run ./internal/cmd/demo [flags]\n\n"+
			"Builds the provider, starts the mock API on loopback, applies %s with Terraform,\n"+
			"downloads and lists the exported bundle, then destroys and cleans up.\n\nFlags:\n", exampleDir)
		fs.PrintDefaults()
	}
	fs.BoolVar(&o.keep, "keep", false, "leave the temporary directory (provider binary, CLI config, working directory) in place")
	fs.DurationVar(&o.exportDuration, "export-duration", mockapi.DefaultExportDuration, "how long the mock's export job runs before it completes")
	fs.DurationVar(&o.linkTTL, "link-ttl", time.Hour, "lifetime of the bundle links the mock generates")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up (and clean up) after this long")
	fs.StringVar(&o.terraform, "terraform", "terraform", "Terraform executable: a name looked up on PATH, or a path")
	fs.StringVar(&o.apiRevision, "api-revision", string(mockapi.RevisionDomain),
		"the static export API the mock speaks: domain (POST /v1/static-export/jobs), project (POST /v1/static-export/{projectId}/jobs) or both; "+
			"the provider finds out which, as it does against a real server")
	switch err := fs.Parse(args); {
	case err != nil:
		return o, err
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	case o.exportDuration <= 0 || o.linkTTL < time.Second || o.timeout <= 0:
		return o, errors.New("-export-duration and -timeout must be positive and -link-ttl at least 1s")
	case !mockapi.ValidAPIRevision(mockapi.APIRevision(o.apiRevision)) || o.apiRevision == "":
		return o, fmt.Errorf("-api-revision %q is none of %v", o.apiRevision, mockapi.APIRevisions)
	}
	return o, nil
}

// demo holds what the steps create, so that cleanup can undo it.
type demo struct {
	opts           options
	stdout, stderr io.Writer

	tmp       string            // everything temporary lives below
	tf        *tfexec.Terraform // in tmp/work, once the example is there
	mock      *mockapi.Server
	destroyed bool
}

func run(ictx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	opts, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ictx, opts.timeout)
	defer cancel()

	d := &demo{opts: opts, stdout: stdout, stderr: stderr}
	defer func() {
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && ictx.Err() == nil {
			err = fmt.Errorf("gave up after -timeout %s: %w", opts.timeout, err)
		}
		if cerr := d.cleanup(ictx, err != nil); err == nil {
			err = cerr
		}
	}()
	if d.tmp, err = os.MkdirTemp("", "docsadmin-demo-"); err != nil {
		return fmt.Errorf("create a temporary directory: %w", err)
	}

	d.step(1, "Checking for Terraform and building the provider")
	runner, err := d.setup(ctx)
	if err != nil {
		return err
	}

	d.step(2, "Starting the mock API")
	d.mock = mockapi.NewServer(mockapi.Config{ExportDuration: opts.exportDuration, LinkTTL: opts.linkTTL, APIRevision: mockapi.APIRevision(opts.apiRevision)})
	fmt.Fprintf(stdout, "Mock API listening on %s (static export API revision %s, exports take %s, links live %s)\n",
		d.mock.URL, opts.apiRevision, duration.Written(opts.exportDuration), duration.Written(opts.linkTTL))

	d.step(3, "terraform init and apply")
	if err := d.apply(ctx, runner); err != nil {
		return err
	}

	d.step(4, "Reading the outputs")
	out, err := d.readOutputs(ctx)
	if err != nil {
		return err
	}
	d.printSummary(out)

	d.step(5, "Downloading and verifying the bundle")
	data, sum, err := downloadBundle(ctx, stdout, out.BundleURL, d.mock.URL)
	if err != nil {
		return err
	}
	if out.BundleSize != nil && *out.BundleSize != sum.Size {
		fmt.Fprintf(stdout, "Note: bundle_size_bytes says %d bytes but %d were downloaded.\n", *out.BundleSize, sum.Size)
	}
	if err := printListing(stdout, data, sum); err != nil {
		return fmt.Errorf("listing the bundle: %w", err)
	}

	d.step(6, "Cleaning up")
	return d.destroy(ctx)
}

func (d *demo) step(n int, title string) {
	fmt.Fprintf(d.stdout, "\n==> [%d/6] %s\n", n, title)
}

// cleanup destroys what apply created (unless interrupted: the mock's jobs
// vanish with it anyway), stops the mock and removes the temporary directory.
func (d *demo) cleanup(ictx context.Context, failed bool) error {
	var errs []error
	if _, err := os.Stat(filepath.Join(d.tmp, "work", "terraform.tfstate")); err == nil && !d.destroyed {
		if ictx.Err() != nil {
			fmt.Fprintln(d.stderr, "demo: skipping terraform destroy after the interrupt (the mock API's state goes away with it)")
		} else {
			fmt.Fprintln(d.stderr, "demo: running terraform destroy after the failure")
			ctx, cancel := context.WithTimeout(ictx, 2*time.Minute)
			errs = append(errs, d.destroy(ctx))
			cancel()
		}
	}
	if d.mock != nil {
		d.mock.Close()
		fmt.Fprintln(d.stdout, "Mock API stopped.")
	}
	switch {
	case d.tmp == "":
	case d.opts.keep:
		fmt.Fprintf(d.stdout, "Kept %s: mirror/ (provider), terraform.rc (CLI config), work/ (configuration and state).\n", d.tmp)
	case os.RemoveAll(d.tmp) != nil:
		errs = append(errs, fmt.Errorf("remove %s", d.tmp))
	default:
		fmt.Fprintf(d.stdout, "Removed %s.\n", d.tmp)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cleanup: %w", err)
	}
	if !failed {
		fmt.Fprintln(d.stdout, "\nDemo complete.")
	}
	return nil
}
