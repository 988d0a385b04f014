//go:build !(linux || openbsd || darwin || freebsd || netbsd)

package sitetree

import "io/fs"

// StatOf gives no stat data here: without a change time, a file rewritten
// with its old size and time would pass, so every file is read.
func StatOf(fs.FileInfo) (Stat, bool) { return Stat{}, false }
