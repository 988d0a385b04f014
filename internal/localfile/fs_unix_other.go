//go:build unix && !linux

package localfile

import (
	"os"
	"syscall"
)

// SyncTree makes every file written below dir durable before a rename
// publishes it: these systems have no syncfs, so everything is synced.
func SyncTree(*os.Root) error {
	syscall.Sync()
	return nil
}
