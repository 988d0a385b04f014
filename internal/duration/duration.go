package duration

import (
	"strconv"
	"time"
)

// Written is d without its zero units: 10m, 1h, 1h30m, 2h5s, 1m500ms. A
// duration under a second, or a remainder of seconds with a fraction, keeps
// time.Duration.String's form for that part (500ms, 1.5s).
func Written(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < 0:
		if d == -1<<63 { // its negation overflows
			return d.String()
		}
		return "-" + Written(-d)
	}
	var s string
	if h := int64(d / time.Hour); h > 0 {
		s += strconv.FormatInt(h, 10) + "h"
		d %= time.Hour
	}
	if m := int64(d / time.Minute); m > 0 {
		s += strconv.FormatInt(m, 10) + "m"
		d %= time.Minute
	}
	if d > 0 {
		s += d.String() // under a minute: 5s, 1.5s, 500ms
	}
	return s
}
