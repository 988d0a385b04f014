// Command applybench measures the provider end to end: it builds the
// provider, starts the in-memory mock API with a request rate limit, and
// times a real `terraform apply` of many docsadmin_static_export resources
// (one for_each) through a dev_overrides CLI configuration (internal/tfrunner).
// It prints the apply's wall time against the ideal (waves of -parallelism
// resources, each wave lasting one job), the requests the mock received, the
// 429s it sent and the resources that failed, then a verdict.
//
// To tell Terraform's own overhead from the provider's, it also times
// `terraform plan` of the same configuration (no API calls), and the same
// apply against a mock whose jobs take 1ms, with no rate limit and no
// request budget.
//
//	go run ./internal/cmd/applybench [-resources 50] [-parallelism 10] [-export-duration 3s] [-rate-limit 20] [-strict]
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
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/benchcmd"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

const (
	// targetRatio is the requirement: wall time within 1.3x the ideal.
	targetRatio = 1.3
)

type options struct {
	resources, parallelism int
	exportDuration         time.Duration
	rateLimit              float64
	terraform              string
	keep, strict           bool
	timeout                time.Duration
}

func main() {
	benchcmd.Main("applybench", parseFlags, run, func(o options) bool { return o.strict })
}

func parseFlags(args []string) (options, error) {
	o := options{}
	fs := flag.NewFlagSet("applybench", flag.ContinueOnError)
	fs.IntVar(&o.resources, "resources", 50, "docsadmin_static_export resources in the for_each")
	fs.IntVar(&o.parallelism, "parallelism", 10, "terraform apply -parallelism")
	fs.DurationVar(&o.exportDuration, "export-duration", 3*time.Second, "how long each of the mock's export jobs runs")
	fs.Float64Var(&o.rateLimit, "rate-limit", 20, "requests per second the mock accepts before answering 429 with Retry-After")
	fs.StringVar(&o.terraform, "terraform", "terraform", "Terraform executable: a name looked up on PATH, or a path")
	fs.BoolVar(&o.keep, "keep", false, "leave the temporary directory (provider, CLI config, configurations, logs) in place")
	fs.BoolVar(&o.strict, "strict", false, "exit with status 1 when the target is missed")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	switch err := fs.Parse(args); {
	case err != nil:
		return o, err
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	case o.resources < 1 || o.parallelism < 1 || o.exportDuration <= 0 || o.rateLimit <= 0 || o.timeout <= 0:
		return o, errors.New("-resources, -parallelism, -export-duration, -rate-limit and -timeout must be positive")
	}
	return o, nil
}

// bench holds what the runs share.
type bench struct {
	opts   options
	runner *tfrunner.Runner
	tmp    string
}

// result is one timed apply.
type result struct {
	plan, wall time.Duration
	exitErr    error
	mock       *mockapi.Server // its counters
	completed  int             // resources whose one export completed and got a link
	errors     []string
	log        string
}

func run(ctx context.Context, opts options, stdout io.Writer) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.timeout)
	defer cancel()

	b := &bench{opts: opts}
	var err error
	if b.tmp, err = os.MkdirTemp("", "docsadmin-applybench-"); err != nil {
		return false, err
	}
	defer func() {
		if opts.keep {
			fmt.Fprintf(stdout, "\nKept %s\n", b.tmp)
			return
		}
		_ = os.RemoveAll(b.tmp)
	}()

	fmt.Fprintln(stdout, "Building the provider...")
	if b.runner, _, err = tfrunner.Setup(ctx, opts.terraform, b.tmp, "bench"); err != nil {
		return false, err
	}

	fmt.Fprintf(stdout, "Floor: the same apply with 1ms jobs, no rate limit and no request budget...\n")
	floor, err := b.apply(ctx, "floor", mockapi.Config{ExportDuration: time.Millisecond, LinkTTL: 24 * time.Hour}, floorSettings)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(stdout, "Measured: %d resources, %s jobs, mock limited to %g requests/s...\n", opts.resources, opts.exportDuration, opts.rateLimit)
	res, err := b.apply(ctx, "measured", mockapi.Config{ExportDuration: opts.exportDuration, RateLimit: opts.rateLimit, LinkTTL: 24 * time.Hour}, "")
	if err != nil {
		return false, err
	}
	return report(stdout, opts, floor, res), nil
}

const configTemplate = `terraform {
  required_providers {
    docsadmin = {
      source = "docsadmin/docsadmin"
    }
  }
}

# base_url and api_key come from DOCSADMIN_BASE_URL and DOCSADMIN_API_KEY.
provider "docsadmin" {%s}

resource "docsadmin_static_export" "site" {
  for_each = toset([for i in range(%d) : "site${i}.example.com"])
  domain   = each.value
}
`

// floorSettings lift the provider's request budget, so that the floor run
// measures Terraform, the provider's start-up and the requests themselves.
const floorSettings = "\n  requests_per_second     = 1000\n  max_concurrent_requests = 100\n"

// apply runs one timed `terraform apply` in a fresh directory against a new
// mock configured by cfg, with settings in the provider block (the measured
// run leaves it empty: default settings).
func (b *bench) apply(ctx context.Context, name string, cfg mockapi.Config, settings string) (result, error) {
	mock := mockapi.NewServer(cfg)
	res := result{mock: mock}
	defer mock.Close()
	tf, err := b.runner.Module(filepath.Join(b.tmp, name), map[string][]byte{
		"main.tf": fmt.Appendf(nil, configTemplate, settings, b.opts.resources),
	}, map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey})
	if err != nil {
		return res, err
	}
	parallelism := tfexec.Parallelism(b.opts.parallelism)

	out := tfrunner.Record(tf)
	start := time.Now()
	if _, err := tf.Plan(ctx, parallelism); err != nil {
		return res, fmt.Errorf("terraform plan (%s): %w\n%s", name, err, out)
	}
	res.plan = time.Since(start)

	out = tfrunner.Record(tf)
	start = time.Now()
	res.exitErr = tf.Apply(ctx, parallelism)
	res.wall = time.Since(start)
	if ctx.Err() != nil {
		return res, fmt.Errorf("terraform apply (%s) stopped: %w", name, context.Cause(ctx))
	}
	res.log = filepath.Join(b.tmp, name+"-apply.log")
	_ = os.WriteFile(res.log, []byte(out.String()), 0o600)
	for line := range strings.SplitSeq(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "Error:") {
			res.errors = append(res.errors, strings.TrimSpace(line))
		}
	}

	for i := range b.opts.resources {
		ids := mock.ExportJobIDs(fmt.Sprintf("site%d.example.com", i))
		if len(ids) == 1 && mock.BundlesGenerated(ids[0]) > 0 {
			res.completed++
		}
	}
	return res, nil
}

func report(w io.Writer, o options, floor, res result) bool {
	waves := int(math.Ceil(float64(o.resources) / float64(o.parallelism)))
	ideal := time.Duration(waves) * o.exportDuration
	ratio := res.wall.Seconds() / ideal.Seconds()
	failed := o.resources - res.completed
	m := res.mock
	total, starts, gets, bundles := m.TotalRequests(), m.Requests(mockapi.EndpointStartExport), m.Requests(mockapi.EndpointGetExport), m.Requests(mockapi.EndpointBundle)

	fmt.Fprintf(w, "\nterraform apply of %d docsadmin_static_export (one for_each), -parallelism=%d, %s jobs,\n", o.resources, o.parallelism, o.exportDuration)
	fmt.Fprintf(w, "mock API limited to %g requests/s (429 with Retry-After beyond that), provider at its default settings\n\n", o.rateLimit)
	fmt.Fprintf(w, "  wall time           %6.1fs  ideal %d waves x %s = %.1fs; %.2fx the ideal (target <= %.1fx = %.1fs)\n",
		res.wall.Seconds(), waves, o.exportDuration, ideal.Seconds(), ratio, targetRatio, targetRatio*ideal.Seconds())
	fmt.Fprintf(w, "  terraform plan      %6.1fs  same configuration: Terraform and provider start-up, no API call\n", res.plan.Seconds())
	fmt.Fprintf(w, "  1ms-job apply       %6.1fs  same apply with 1ms jobs, no rate limit, no request budget: all but the jobs' time\n", floor.wall.Seconds())
	fmt.Fprintf(w, "  requests            %6d   %d starts, %d GETs, %d bundle links, %d other; %.1f per resource\n",
		total, starts, gets, bundles, total-starts-gets-bundles, float64(total)/float64(o.resources))
	fmt.Fprintf(w, "  429s received       %6d\n", m.RateLimited())
	fmt.Fprintf(w, "  failed resources    %6d   of %d (one export each, completed, with a link: %d)\n", failed, o.resources, res.completed)
	if res.exitErr != nil {
		failure, _, _ := strings.Cut(res.exitErr.Error(), "\n") // then Terraform's stderr, in the log
		fmt.Fprintf(w, "  terraform apply     failed: %s; log: %s\n", failure, res.log)
		for i, e := range res.errors {
			if i == 5 {
				fmt.Fprintf(w, "    ... %d more\n", len(res.errors)-i)
				break
			}
			fmt.Fprintf(w, "    %s\n", e)
		}
	}
	if floor.exitErr != nil || floor.completed != o.resources {
		fmt.Fprintf(w, "  (the floor run itself failed: %v; log: %s)\n", floor.exitErr, floor.log)
	}

	pass := res.exitErr == nil && failed == 0 && ratio <= targetRatio
	verdict := "PASS"
	if !pass {
		verdict = "MISS"
	}
	fmt.Fprintf(w, "\n%s  no failed resource and wall time within %.1fx the ideal: %d failed, %.1fs = %.2fx\n", verdict, targetRatio, failed, res.wall.Seconds(), ratio)
	return pass
}
