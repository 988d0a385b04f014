package main

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// A step that runs for minutes says so every interval, with the time it has
// taken, and nothing more once it has ended.
func TestHeartbeatSaysThatAStepStillRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		stop := heartbeat(&out, "building the provider", 30*time.Second)
		time.Sleep(95 * time.Second)
		stop()
		time.Sleep(time.Minute)
		want := "... still building the provider (30s)\n... still building the provider (1m)\n... still building the provider (1m30s)\n"
		if got := out.String(); got != want {
			t.Errorf("heartbeat wrote %q, want %q", got, want)
		}
		if strings.Contains(out.String(), "m0s") {
			t.Errorf("a duration is written as time.Duration writes it: %q", out.String())
		}
	})
}
