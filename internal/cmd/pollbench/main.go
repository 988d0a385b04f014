// Command pollbench compares, on a simulated clock, the provider's way of
// waiting for an export job with the two that users script today (a shell
// loop sleeping 10 seconds, and the Terraform SDK's default waiter), over the
// mock API's linear, noisy and stalling jobs of 5 seconds to 30 minutes. It
// prints detection latency, GETs per job and jobs given up, and a verdict per
// target.
//
//	go run ./internal/cmd/pollbench [-jobs 1000] [-seed 1] [-spread 0.25] [-strict]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/pollbench"
)

func main() {
	c := pollbench.DefaultConfig()
	fs := flag.NewFlagSet("pollbench", flag.ExitOnError)
	fs.IntVar(&c.Jobs, "jobs", c.Jobs, "simulated jobs per shape and duration")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of job durations, noise and jitter")
	fs.Float64Var(&c.Spread, "spread", c.Spread, "jobs last the nominal duration times 1±spread, uniformly (0: exactly)")
	strict := fs.Bool("strict", false, "exit with status 1 when a target is missed")
	_ = fs.Parse(os.Args[1:])
	if c.Jobs < 1 || c.Spread < 0 || c.Spread >= 1 {
		fmt.Fprintln(os.Stderr, "pollbench: -jobs must be positive and -spread in [0, 1)")
		os.Exit(2)
	}

	start := time.Now()
	strategies := pollbench.Strategies()
	cells := pollbench.Run(c, strategies)
	pass := pollbench.Report(os.Stdout, c, cells, strategies)
	fmt.Printf("\n(%d simulated waits in %s)\n", len(cells)*len(strategies)*c.Jobs, time.Since(start).Round(time.Millisecond))
	if *strict && !pass {
		os.Exit(1)
	}
}
