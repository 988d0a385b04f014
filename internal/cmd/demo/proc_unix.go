//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// setInterruptible runs cmd in its own process group, so that a Ctrl-C in
// the terminal reaches the demo only, and stops it on cancellation with a
// single SIGINT: Terraform then finishes gracefully (a second interrupt would
// make it quit at once). It is killed if it has not exited 30s later.
func setInterruptible(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
			return cmd.Process.Signal(os.Interrupt)
		}
		return nil
	}
	cmd.WaitDelay = 30 * time.Second
}

// stdoutIsTerminal reports whether Terraform's colours would reach a terminal.
func stdoutIsTerminal() bool {
	fi, err := os.Stdout.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
