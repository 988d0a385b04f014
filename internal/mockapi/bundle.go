package mockapi

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// amzDateFormat is the timestamp format of X-Amz-Date.
const amzDateFormat = "20060102T150405Z"

type bundleJSON struct {
	JobID     string `json:"jobId"`
	BundleURL string `json:"bundleUrl"`
	SizeBytes int64  `json:"sizeBytes"`
	ExpiresAt string `json:"expiresAt,omitempty"`
}

// BundlePath is the path of a job's archive on the download endpoint, where
// the links of jobs started through part B's route point.
func BundlePath(jobID string) string {
	return "/bundles/" + url.PathEscape(jobID) + "/bundle.tar.gz"
}

// ExportZipPath is the path of a job's archive on EndpointDownloadZip, where
// the links of jobs started through part E's route point, whichever call
// issued them. It serves the same gzip'd tar as BundlePath.
func ExportZipPath(jobID string) string {
	return "/bundles/" + url.PathEscape(jobID) + "/export.zip"
}

// linkPath is where the job's links point: the path of the revision that
// started it.
func (snap ExportJobSnapshot) linkPath() string {
	if snap.Project != "" {
		return ExportZipPath(snap.ID)
	}
	return BundlePath(snap.ID)
}

// SetLinkExtra adds query to every link issued from now, after its signed
// parameters, as an API that tacks its own parameters on a presigned link
// (client=<the key>, a careless one): the download ignores what it does
// not sign. Empty stops it.
func (s *Server) SetLinkExtra(query string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.linkExtra = query
}

// newLink signs a fresh link to a completed job's archive and counts it:
// the one rule for the bundle call and for part E's completed jobs.
func (s *Server) newLink(r *http.Request, snap ExportJobSnapshot) bundleJSON {
	link, expiresAt := s.signLink(s.baseURLFor(r), snap.linkPath(), s.now())
	if extra := locked(s, func() string { return s.linkExtra }); extra != "" {
		link += "&" + extra
	}
	s.count(bundlesFor(snap.ID))
	out := bundleJSON{JobID: snap.ID, BundleURL: link, SizeBytes: snap.archive.size()}
	if !s.cfg.OmitExpiresAt {
		out.ExpiresAt = formatTime(expiresAt)
	}
	return out
}

func (s *Server) handleBundle(w http.ResponseWriter, r *http.Request) {
	jobID := r.PathValue("jobId")
	snap, ok := s.domainJob(jobID)
	switch {
	case !ok:
		writeError(w, http.StatusNotFound, fmt.Sprintf("static export job %s not found", jobID))
		return
	case snap.Status == StatusFailed:
		writeError(w, http.StatusConflict, fmt.Sprintf("job %s failed and cannot be bundled: %s", jobID, snap.Error))
		return
	case snap.Status != StatusCompleted:
		writeError(w, http.StatusConflict, fmt.Sprintf("job %s has not finished (status %s)", jobID, snap.Status))
		return
	}

	writeJSON(w, http.StatusOK, s.newLink(r, snap))
}

// signLink builds a presigned S3-style link to path valid for LinkTTL from
// now. The expiry is computed from the second-precision X-Amz-Date so that
// expiresAt and the query always agree. The signature covers the path, so a
// link opens only the archive it was issued for.

func (s *Server) signLink(base, path string, now time.Time) (string, time.Time) {
	date := now.UTC().Format(amzDateFormat)
	expires := max(int64(s.cfg.LinkTTL/time.Second), 1)
	signed, _ := time.Parse(amzDateFormat, date)
	q := fmt.Sprintf("X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=mock&X-Amz-Date=%s&X-Amz-Expires=%d&X-Amz-SignedHeaders=host&X-Amz-Signature=%s",
		date, expires, s.signature(path, date, strconv.FormatInt(expires, 10)))
	return base + path + "?" + q, signed.Add(time.Duration(expires) * time.Second)
}

func (s *Server) signature(path, date, expires string) string {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(path + "\n" + date + "\n" + expires))
	return hex.EncodeToString(m.Sum(nil))
}

// s3Error is the XML error body object storage answers with.
type s3Error struct {
	XMLName    xml.Name `xml:"Error"`
	Code       string   `xml:"Code"`
	Message    string   `xml:"Message"`
	Expires    string   `xml:"Expires,omitempty"`
	ServerTime string   `xml:"ServerTime,omitempty"`
	RequestID  string   `xml:"RequestId"`
}

func writeS3Error(w http.ResponseWriter, status int, e s3Error) {
	e.RequestID = rand.Text()
	b, _ := xml.Marshal(e)
	writeBody(w, status, "application/xml", append([]byte(xml.Header), b...))
}

// handleDownload serves the archive behind a presigned link: the signature
// must match, the link must not have expired, and the job must still exist.
func (s *Server) handleDownload(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	alg, date, expires, sig := q.Get("X-Amz-Algorithm"), q.Get("X-Amz-Date"), q.Get("X-Amz-Expires"), q.Get("X-Amz-Signature")
	denied := func(code, msg string) { writeS3Error(w, http.StatusForbidden, s3Error{Code: code, Message: msg}) }
	if alg == "" || date == "" || expires == "" || sig == "" {
		denied("AccessDenied", "Query-string authentication requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.")
		return
	}
	want := s.signature(r.URL.EscapedPath(), date, expires)
	if alg != "AWS4-HMAC-SHA256" || !hmac.Equal([]byte(sig), []byte(want)) {
		denied("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
		return
	}
	// signLink wrote both: a matching signature vouches for their format.
	signed, _ := time.Parse(amzDateFormat, date)
	secs, _ := strconv.ParseInt(expires, 10, 64)
	now := s.now()
	expiry := signed.Add(time.Duration(secs) * time.Second)
	if !now.Before(expiry) {
		writeS3Error(w, http.StatusForbidden, s3Error{
			Code:       "AccessDenied",
			Message:    "Request has expired",
			Expires:    formatTime(expiry),
			ServerTime: formatTime(now),
		})
		return
	}

	jobID := r.PathValue("jobId")
	snap, ok := s.ExportJob(jobID)
	if !ok {
		writeS3Error(w, http.StatusNotFound, s3Error{Code: "NoSuchKey", Message: "The specified key does not exist."})
		return
	}
	s.count(downloadsFor(jobID), allDownloads)
	writeStream(w, http.StatusOK, downloadContentTypes[Endpoint(r.Pattern)], snap.archive.size(), snap.archive.write)
}
