package tfrunner

import (
	"strings"
	"testing"
)

func TestTranscriptMasksSignatures(t *testing.T) {
	var tr Transcript
	_, _ = tr.Write([]byte(`"bundle_url":"https://b.example/se_1/bundle.tar.gz?X-Amz-Date=20261127T193343Z\u0026X-Amz-Signature=fdf66c1735735f0b"`))
	got := tr.String()
	if strings.Contains(got, "fdf66c1735735f0b") || !strings.Contains(got, "X-Amz-Signature=REDACTED") || !strings.Contains(got, "X-Amz-Date=20261127T193343Z") {
		t.Errorf("transcript = %s: want the signature masked and the rest kept", got)
	}
}
