// Package duration words a time.Duration as a user writes one in a
// configuration: "10m", "1h", "30s", "1h30m", never time.Duration.String's
// "10m0s" or "1h0m0s". Every duration the provider shows (a default in a
// schema description, a limit or a time waited in a message, a log record of
// the client or the poller) goes through Written, and what it writes parses
// back with time.ParseDuration to the same value. Nothing that shows a
// duration to a user may format it otherwise.
package duration
