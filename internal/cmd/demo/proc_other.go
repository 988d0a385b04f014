//go:build !unix

package main

import (
	"os"
	"os/exec"
	"time"
)

// setInterruptible lets cancellation kill cmd (interrupts cannot be sent to
// another process here), after which it gets 30s to exit.
func setInterruptible(cmd *exec.Cmd) {
	cmd.WaitDelay = 30 * time.Second
}

// stdoutIsTerminal reports whether Terraform's colours would reach a terminal.
func stdoutIsTerminal() bool {
	fi, err := os.Stdout.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
