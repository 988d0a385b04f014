package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary act as the child, as the command re-executes
// itself.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "-child" {
		os.Exit(child(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1GiB": 1 << 30, "256MiB": 256 << 20, "1.5G": 3 << 29, "64KiB": 64 << 10, "1000": 1000} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1MiB", "1TB", "2000GiB", "MiB"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) succeeded", in)
		}
	}
}

func TestRun(t *testing.T) {
	for _, save := range []bool{false, true} {
		var out strings.Builder
		pass, err := run(context.Background(), options{size: 8 << 20, seed: 3, save: save}, &out)
		if err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + out.String())
		if !strings.Contains(out.String(), "child peak RSS") || !strings.Contains(out.String(), "digest matches") {
			t.Fatalf("run did not report:\n%s", out.String())
		}
		// The race detector's shadow memory counts in the child's RSS.
		if !pass && !raceEnabled {
			t.Fatalf("run missed the target:\n%s", out.String())
		}
	}
}
