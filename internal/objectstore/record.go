package objectstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// RecordKey is where, under the prefix, the provider records what it
// wrote. No file of a site can be there: a site's names never start with a
// dot outside /.well-known/ (site.NameProblem).
const RecordKey = ".docsadmin/site.json"

// recordFormat names the record's shape, so that a later shape is told
// apart rather than misread.
const recordFormat = "docsadmin-bucket-site/1"

// recordBytes bounds the record read back from the store for a prefix of
// at most maxListed objects: 512 bytes an entry, more than twice what an
// entry of a long name takes.
func recordBytes(maxListed int) int { return 512*maxListed + 64<<10 }

// Record is what the provider wrote under a prefix: every object it owns
// there, with the digests it wrote, and the uploads of a publication that
// had not ended when it was written.
//
// A record is trusted only when state pins it (its SHA-256 is the one
// state holds), or when it names the publication state pins as the one it
// follows (Previous) and the same site: the record of a publication whose
// apply was killed before state was saved. Anyone who can rewrite the
// record can rewrite the objects too, so the pin guards against accidents
// and stale copies rather than against the bucket's own writers.
type Record struct {
	Format        string                 `json:"format"`
	Site          string                 `json:"site"`
	JobID         string                 `json:"job_id"`
	ArchiveSHA256 string                 `json:"archive_sha256"`
	Previous      string                 `json:"previous"` // the SHA-256 of the record state pinned when this publication began
	Complete      bool                   `json:"complete"`
	Files         map[string]RecordEntry `json:"files"`
	Pending       []string               `json:"pending,omitempty"` // uploads not yet confirmed: written again by the next publication
}

// RecordEntry is one object the provider wrote.
type RecordEntry struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	MD5    string `json:"md5"`
}

// encode is the record's bytes and their SHA-256: the same record always
// gives the same bytes (json.Marshal sorts map keys).
func (r *Record) encode() ([]byte, string, error) {
	if r.Pending != nil {
		slices.Sort(r.Pending)
	}
	body, err := json.Marshal(r)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(body)
	return body, hex.EncodeToString(sum[:]), nil
}

// decodeRecord parses a record read from the store, refusing any other
// shape.
func decodeRecord(body []byte) (*Record, error) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("it is not a publication record: %w", err)
	}
	if r.Format != recordFormat {
		return nil, fmt.Errorf("its format is %q, not %q", r.Format, recordFormat)
	}
	if r.Files == nil {
		r.Files = map[string]RecordEntry{}
	}
	return &r, nil
}

// trusts says whether a record read from the store, whose SHA-256 is sum,
// may be relied on by the site siteID whose state pins the record pinned
// (empty before its first publication).
func (r *Record) trusts(sum, siteID, pinned string) bool {
	if pinned != "" && sum == pinned {
		return true
	}
	return r.Site == siteID && r.Previous == pinned
}

// pending is the set of the record's unconfirmed uploads.
func (r *Record) pendingSet() map[string]bool {
	set := make(map[string]bool, len(r.Pending))
	for _, k := range r.Pending {
		set[k] = true
	}
	return set
}

// owned is the record's files, or none for no record.
func owned(r *Record) map[string]RecordEntry {
	if r == nil {
		return map[string]RecordEntry{}
	}
	return maps.Clone(r.Files)
}
