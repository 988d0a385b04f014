//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS returns the exited process's peak resident set size in bytes.
func peakRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss), true //nolint:unconvert // bytes there; int32 on some platforms
	}
	return int64(ru.Maxrss) << 10, true //nolint:unconvert // KiB on Linux and the BSDs; int32 on some platforms
}
