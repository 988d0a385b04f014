package archive_test

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// TestVerifyMemoryIsBounded verifies a 256 MiB archive generated as it is
// read and samples the heap meanwhile: the peak stays far below the archive's
// size. The bound is loose (the generator shares the heap, and garbage waits
// for the collector); what it catches is a verifier that holds the archive or
// an entry. cmd/verifybench measures the same thing as the process's peak RSS.
func TestVerifyMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 256 MiB")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory and slowness say nothing of the verifier")
	}
	const size, bound = 256 << 20, 32 << 20
	runtime.GC()

	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	r := sitegen.Archive{Size: size, Seed: 7}.Open()
	sum, err := archive.Verify(r)
	_ = r.Close()
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if sum.UnpackedBytes != size {
		t.Fatalf("verified %d bytes of files, want %d", sum.UnpackedBytes, size)
	}
	t.Logf("%d MiB archive, %d files: peak heap %.1f MiB", sum.Size>>20, sum.Files, float64(peak)/(1<<20))
	if peak > bound {
		t.Fatalf("peak heap %.1f MiB while verifying a %d MiB archive, want under %d MiB", float64(peak)/(1<<20), sum.Size>>20, bound>>20)
	}
}
