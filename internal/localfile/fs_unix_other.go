//go:build unix && !linux

package localfile

import "syscall"

// SyncTree makes every file written below dir durable before a rename
// publishes it: these systems have no syncfs, so everything is synced.
func SyncTree(string) error {
	syscall.Sync()
	return nil
}
