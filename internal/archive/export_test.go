package archive

import (
	"bytes"
	"context"
)

// EntriesOf verifies data and returns the entries as the verifier read them.
func EntriesOf(data []byte) ([]Entry, error) {
	var out []Entry
	_, err := Limits{}.verify(context.Background(), bytes.NewReader(data), nil, func(e Entry) { out = append(out, e) })
	return out, err
}

// SetMaxWalkSteps lowers the bound on path components walked until restore.
func SetMaxWalkSteps(n int) (restore func()) {
	old := maxWalkSteps
	maxWalkSteps = n
	return func() { maxWalkSteps = old }
}
