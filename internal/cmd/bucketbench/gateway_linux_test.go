package main

import (
	"crypto/sha256"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestGatewayCPU reads a process's CPU time from /proc: this process's,
// once it has spent some.
func TestGatewayCPU(t *testing.T) {
	self := &gateway{cmd: &exec.Cmd{Process: &os.Process{Pid: os.Getpid()}}}
	work := make([]byte, 1<<20)
	for deadline := time.Now().Add(5 * time.Second); self.cpu() < 20*time.Millisecond && time.Now().Before(deadline); {
		sum := sha256.Sum256(work)
		work[0] = sum[0]
	}
	if got := self.cpu(); got < 20*time.Millisecond {
		t.Fatalf("cpu() = %s after 5 s of hashing", got)
	}
}
