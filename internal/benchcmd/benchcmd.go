package benchcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

// Main parses the command line with parse and runs run with a context that
// Ctrl-C cancels, printing to stdout. It exits with 2 on an error, and with 1
// when strict says the options ask for it and run reports a missed target.
func Main[Options any](name string, parse func([]string) (Options, error), run func(context.Context, Options, io.Writer) (bool, error), strict func(Options) bool) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	opts, err := parse(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		stop()
		return
	}
	pass := false
	if err == nil {
		pass, err = run(ctx, opts, os.Stdout)
	}
	stop()
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(2)
	case strict(opts) && !pass:
		os.Exit(1)
	}
}
