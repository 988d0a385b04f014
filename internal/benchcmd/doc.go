// Package benchcmd is the command-line frame the benchmark commands share:
// flags, Ctrl-C, and an exit status that CI can act on (-strict makes a
// missed target exit 1).
package benchcmd
