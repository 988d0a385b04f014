//go:build unix

package publish

import "os"

// replaceLink renames the link at from over to: one atomic step on POSIX
// systems, whatever was at to (a link, or nothing).
func replaceLink(from, to string) error {
	return os.Rename(from, to)
}
