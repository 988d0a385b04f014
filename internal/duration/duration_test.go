package duration

import (
	"testing"
	"time"
)

func TestWritten(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                  "0s",
		30 * time.Second:                   "30s",
		time.Minute:                        "1m",
		10 * time.Minute:                   "10m",
		time.Hour:                          "1h",
		90 * time.Minute:                   "1h30m",
		time.Hour + 5*time.Second:          "1h5s",
		30 * 24 * time.Hour:                "720h",
		1500 * time.Millisecond:            "1.5s",
		500 * time.Millisecond:             "500ms",
		time.Minute + 500*time.Millisecond: "1m500ms",
		-10 * time.Minute:                  "-10m",
	} {
		if got := Written(d); got != want {
			t.Errorf("Written(%s) = %q, want %q", d, got, want)
		}
	}
}

// What Written writes reads back as the same duration.
func FuzzWritten(f *testing.F) {
	for _, d := range []int64{0, 1, int64(time.Second), int64(90 * time.Minute), -int64(time.Hour), 1<<63 - 1, -1 << 63} {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, n int64) {
		d := time.Duration(n)
		s := Written(d)
		back, err := time.ParseDuration(s)
		if err != nil || back != d {
			t.Fatalf("Written(%s) = %q, which parses as %s (%v)", d, s, back, err)
		}
	})
}
