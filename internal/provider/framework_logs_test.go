package provider

import (
	"os"
	"testing"
)

func TestLimitFrameworkLogs(t *testing.T) {
	t.Setenv(frameworkLogLevel, "")
	if err := os.Unsetenv(frameworkLogLevel); err != nil {
		t.Fatal(err)
	}
	LimitFrameworkLogs()
	if got := os.Getenv(frameworkLogLevel); got != "DEBUG" {
		t.Errorf("with %s unset: %s=%q, want DEBUG", frameworkLogLevel, frameworkLogLevel, got)
	}

	t.Setenv(frameworkLogLevel, "trace")
	LimitFrameworkLogs()
	if got := os.Getenv(frameworkLogLevel); got != "trace" {
		t.Errorf("a level the user set was changed: %s=%q, want trace", frameworkLogLevel, got)
	}
}
