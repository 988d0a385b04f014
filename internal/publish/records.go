package publish

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish/confined"
)

// A release's records are files of the caller's (a manifest, say) that
// Switch writes beside the release, in the store's records directory, as
// "<release><suffix>", and that go with their release.

// Record is the path of a release's record of the given suffix (such as
// ".json"), which Switch wrote beside the release.
func (s Site) Record(release, suffix string) string {
	return filepath.Join(s.Store, recordsDir, release+suffix)
}

// ReadRecord reads a release's record: a regular file of at most limit
// bytes, reached without following any link.
func (s Site) ReadRecord(release, suffix string, limit int64) ([]byte, error) {
	o, err := s.open(false)
	if err != nil {
		return nil, err
	}
	defer o.close()
	if o.store == nil {
		return nil, fmt.Errorf("%s does not exist", s.Store)
	}
	records, err := confined.OpenDir(o.store, recordsDir, "the records of the site's releases")
	if err != nil {
		return nil, err
	}
	if records == nil {
		return nil, fmt.Errorf("%s: %w", s.Record(release, suffix), fs.ErrNotExist)
	}
	defer records.Close()
	f, err := confined.OpenRegular(records, release+suffix, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return confined.ReadLimited(f, limit, s.Record(release, suffix))
}

// writeRecords writes the records of release durably.
func writeRecords(store *os.Root, release string, records map[string][]byte) error {
	if len(records) == 0 {
		return nil
	}
	dir, err := confined.MakeDir(store, recordsDir)
	if err != nil {
		return err
	}
	defer dir.Close()
	for suffix, data := range records {
		if err := localfile.WriteBytes(dir, release+suffix, 0o644, data); err != nil {
			return err
		}
	}
	return nil
}

// pruneRecords removes the records of the releases keep refuses.
func pruneRecords(store *os.Root, keep func(release string) bool) {
	dir, err := confined.OpenDir(store, recordsDir, "")
	if err != nil || dir == nil {
		return
	}
	defer dir.Close()
	entries, err := confined.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if made, ok := localfile.TempOf(name); ok { // a write a killed run left
			name = made
		}
		release, _, _ := strings.Cut(name, ".")
		if releaseName.MatchString(release) && !keep(release) {
			_, _ = confined.Remove(dir, e.Name(), confined.File)
		}
	}
}
