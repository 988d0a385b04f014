package objectstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/aws/smithy-go"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
	"google.golang.org/api/googleapi"
)

// Store is one target's bucket, opened.
type Store struct {
	Target Target
	bucket *blob.Bucket
	prefix string
	// written, when set, is told every write and deletion as it succeeds
	// ("put", "delete", "record"), for the tests of the order.
	written func(op, key string)
}

func (s *Store) wrote(op, key string) {
	if s.written != nil {
		s.written(op, key)
	}
}

// OpenStore opens the target's bucket. Nothing is sent yet.
func OpenStore(ctx context.Context, t Target) (*Store, error) {
	t.Prefix = NormalPrefix(t.Prefix)
	b, err := Open(ctx, t)
	if err != nil {
		return nil, &StoreError{Target: t, Op: "opening", Err: err}
	}
	return &Store{Target: t, bucket: b, prefix: t.Prefix}, nil
}

// NewStore wraps a bucket already opened, for tests and for stores a
// caller opens itself.
func NewStore(t Target, b *blob.Bucket) *Store {
	t.Prefix = NormalPrefix(t.Prefix)
	return &Store{Target: t, bucket: b, prefix: t.Prefix}
}

// Close releases the bucket.
func (s *Store) Close() error { return s.bucket.Close() }

// Object is one object of a listing, relative to the prefix.
type Object struct {
	Size int64
	MD5  string // lower-case hex; "" where the store reports none (an S3 multipart or KMS upload)
}

// matches says whether the object listed is the one the record says was
// written: the same size, and the same MD5 where the store reports one.
func (o Object) matches(e RecordEntry) bool {
	return o.Size == e.Size && (o.MD5 == "" || o.MD5 == e.MD5)
}

// readRecord reads the record: nil when there is none, and its SHA-256.
// A record too large or not in the provider's shape is no record of the
// provider's: malformed says why, and no object is known to be its.
func (s *Store) readRecord(ctx context.Context, maxListed int) (rec *Record, sum, malformed string, err error) {
	key := s.prefix + RecordKey
	r, err := s.bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, "", "", nil
	}
	if err != nil {
		return nil, "", "", s.fail("reading the record "+key+" of", err)
	}
	defer r.Close()
	limit := recordBytes(maxListed)
	body, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, "", "", s.fail("reading the record "+key+" of", err)
	}
	if len(body) > limit {
		return nil, "", (&LimitError{What: "bytes", Limit: limit}).Error(), nil
	}
	rec, err = decodeRecord(body)
	if err != nil {
		return nil, "", err.Error(), nil
	}
	// The digest of the bytes read, not of the record re-encoded: a record
	// edited in any way is another record.
	return rec, digest(body), "", nil
}

// writeRecord writes the record and returns its SHA-256.
func (s *Store) writeRecord(ctx context.Context, rec *Record) (string, error) {
	body, sum, err := rec.encode()
	if err != nil {
		return "", err
	}
	opts := &blob.WriterOptions{ContentType: "application/json", CacheControl: "no-store", ContentMD5: md5Of(body)}
	if err := s.bucket.WriteAll(ctx, s.prefix+RecordKey, body, opts); err != nil {
		return "", s.fail("writing the record "+s.prefix+RecordKey+" to", err)
	}
	s.wrote("record", RecordKey)
	return sum, nil
}

// fail words an error of the store for op.
func (s *Store) fail(op string, err error) error {
	return &StoreError{Target: s.Target, Op: op, Err: err}
}

// StoreError is a request to the store that failed, with what to set.
type StoreError struct {
	Target Target
	Op     string
	Err    error
}

func (e *StoreError) Error() string {
	return fmt.Sprintf("%s %s failed: %s%s", e.Op, e.Target, conciseError(e.Err), e.hint())
}

func (e *StoreError) Unwrap() error { return e.Err }

// hint says what to set for the kinds of failure a configuration causes.
func (e *StoreError) hint() string {
	var limit *LimitError
	if errors.As(e.Err, &limit) {
		return ""
	}
	msg := e.Err.Error()
	switch {
	case strings.Contains(msg, "NoSuchBucket") || strings.Contains(msg, "ContainerNotFound") ||
		(gcerrors.Code(e.Err) == gcerrors.NotFound && !strings.Contains(e.Op, "record")):
		return ". The bucket does not exist there: create it, or set the bucket (and, for S3, the region and endpoint) to where it is"
	case strings.Contains(msg, "PermanentRedirect") || strings.Contains(msg, "AuthorizationHeaderMalformed") ||
		strings.Contains(msg, "IncorrectEndpoint") || strings.Contains(msg, "region"):
		return ". The bucket is in another region or behind another endpoint: set s3.region (and s3.endpoint for an S3-compatible store) to the bucket's"
	case gcerrors.Code(e.Err) == gcerrors.PermissionDenied || strings.Contains(msg, "AccessDenied") ||
		strings.Contains(msg, "AuthorizationFailure") || strings.Contains(msg, "AuthorizationPermissionMismatch") || strings.Contains(msg, "HTTP 403"):
		return ". The credentials the store's SDK found (environment, shared configuration, workload identity) may not do this: " +
			"grant them list, read, write and delete on the prefix"
	case strings.Contains(msg, "no such host") || strings.Contains(msg, "connection refused") || strings.Contains(msg, "dial tcp"):
		return ". The store could not be reached: check the endpoint (s3.endpoint, AZURE_STORAGE_DOMAIN, STORAGE_EMULATOR_HOST) and the network"
	case strings.Contains(msg, "credential") || strings.Contains(msg, "NoCredentialProviders"):
		return ". No credentials were found: set them as the store's SDK reads them (AWS_ACCESS_KEY_ID or AWS_PROFILE, " +
			"GOOGLE_APPLICATION_CREDENTIALS, AZURE_STORAGE_KEY or an Azure identity)"
	}
	return ""
}

// conciseError is an SDK's error without the request's whole trace: the
// service's code and message where the SDK parsed them, else the last 600
// bytes at most, which hold them.
func conciseError(err error) string {
	var api smithy.APIError
	var azure *azcore.ResponseError
	var google *googleapi.Error
	switch {
	case errors.As(err, &api):
		return strings.TrimSuffix(api.ErrorCode()+": "+api.ErrorMessage(), ".")
	case errors.As(err, &azure):
		return fmt.Sprintf("%s (HTTP %d)", azure.ErrorCode, azure.StatusCode)
	case errors.As(err, &google):
		return fmt.Sprintf("%s (HTTP %d)", strings.TrimSuffix(google.Message, "."), google.Code)
	}
	msg := strings.TrimSuffix(err.Error(), ".")
	if len(msg) > 600 {
		msg = "…" + msg[len(msg)-600:]
	}
	return msg
}

// LimitError is a store's answer larger than the provider reads.
type LimitError struct {
	What  string
	Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("more than %d %s: the provider reads no more", e.Limit, e.What)
}
