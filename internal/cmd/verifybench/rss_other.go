//go:build !unix

package main

import "os"

// peakRSS is not known here.
func peakRSS(*os.ProcessState) (int64, bool) { return 0, false }

// selfPeakRSS is not known here.
func selfPeakRSS() int64 { return 0 }
