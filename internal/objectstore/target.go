package objectstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcp"
)

// The kinds of store a site is published into.
const (
	KindS3    = "s3"
	KindGCS   = "gcs"
	KindAzure = "azure"
)

// Target is a place in an object store: a bucket (an Azure container) and
// a prefix in it. Credentials are never part of it: each store's SDK finds
// them in its standard chain (environment, shared configuration files,
// workload identity).
type Target struct {
	Kind   string
	Bucket string
	Prefix string // "" or ending with "/": Prefix() normalises what the user wrote

	// S3 and S3-compatible stores.
	Region    string // "" for the SDK's chain (AWS_REGION, the shared config)
	Endpoint  string // "" for AWS; a URL for MinIO, R2, versitygw
	PathStyle bool

	// Azure Blob: the storage account; "" for AZURE_STORAGE_ACCOUNT or a
	// connection string in AZURE_STORAGE_CONNECTION_STRING.
	Account string
}

// String names the target in messages: its URL, and what else decides
// where requests go.
func (t Target) String() string {
	scheme := map[string]string{KindS3: "s3", KindGCS: "gs", KindAzure: "azblob"}[t.Kind]
	s := scheme + "://" + t.Bucket + "/" + t.Prefix
	var extra []string
	if t.Region != "" {
		extra = append(extra, "region "+t.Region)
	}
	if t.Endpoint != "" {
		extra = append(extra, "endpoint "+t.Endpoint)
	}
	if t.Account != "" {
		extra = append(extra, "account "+t.Account)
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// NormalPrefix is a prefix as the store's keys carry it: "" for the
// bucket's root, else the prefix with one trailing slash, so that "docs"
// never lists "docs-v2/".
func NormalPrefix(p string) string {
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return ""
	}
	return p + "/"
}

// PrefixProblem says why p cannot be a site's prefix, or "".
func PrefixProblem(p string) string {
	if p == "" {
		return ""
	}
	switch {
	case len(p) > 512:
		return "it is longer than 512 bytes"
	case !utf8.ValidString(p):
		return "it is not valid UTF-8"
	case strings.HasPrefix(p, "/"):
		return "it starts with a slash (keys have no leading slash: write \"docs\", not \"/docs\")"
	}
	for _, seg := range strings.Split(strings.TrimSuffix(p, "/"), "/") {
		switch seg {
		case "":
			return "it holds an empty segment (\"//\")"
		case ".", "..":
			return fmt.Sprintf("it holds the segment %q, which hosts and CDNs normalise away", seg)
		case ".docsadmin":
			return "it is inside the provider's own record folder, .docsadmin"
		}
	}
	for _, r := range p {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\\' {
			return fmt.Sprintf("it holds the character %U, which hosts and CDNs treat differently", r)
		}
	}
	return ""
}

// BucketProblem says why s cannot be a bucket's (or an Azure container's)
// name in any store, or "": empty, a path, or longer than any store's
// bound.
func BucketProblem(s string) string {
	switch {
	case s == "":
		return "the name is empty"
	case len(s) > 222:
		return "it is longer than 222 bytes, the longest name a store accepts"
	case strings.ContainsAny(s, "/\\?#:@ "):
		return "it is not a bucket's name: write the name alone, such as \"docs-site\", and the folder in prefix"
	}
	return ""
}

// Open opens the target's bucket with its SDK's standard credential chain.
// Nothing is sent yet.
func Open(ctx context.Context, t Target) (*blob.Bucket, error) {
	switch t.Kind {
	case KindS3:
		return openS3(ctx, t)
	case KindGCS:
		return openGCS(ctx, t)
	case KindAzure:
		q := url.Values{}
		if t.Account != "" {
			q.Set("storage_account", t.Account)
		}
		opener := &azureblob.URLOpener{MakeClient: azureblob.NewDefaultClient, ServiceURLOptions: *azureblob.NewDefaultServiceURLOptions()}
		return opener.OpenBucketURL(ctx, &url.URL{Scheme: azureblob.Scheme, Host: t.Bucket, RawQuery: q.Encode()})
	}
	return nil, fmt.Errorf("unknown kind of store %q", t.Kind)
}

func openGCS(ctx context.Context, t Target) (*blob.Bucket, error) {
	// An emulator takes no credentials: gcsblob sends none to it.
	if os.Getenv("STORAGE_EMULATOR_HOST") != "" {
		return gcsblob.OpenBucket(ctx, gcp.NewAnonymousHTTPClient(gcp.DefaultTransport()), t.Bucket, nil)
	}
	creds, err := gcp.DefaultCredentials(ctx)
	if err != nil {
		return nil, fmt.Errorf("finding Google Cloud credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud application-default login, the metadata server): %w", err)
	}
	client, err := gcp.NewHTTPClient(gcp.DefaultTransport(), gcp.CredentialsTokenSource(creds))
	if err != nil {
		return nil, err
	}
	return gcsblob.OpenBucket(ctx, client, t.Bucket, nil)
}

func openS3(ctx context.Context, t Target) (*blob.Bucket, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if t.Region != "" {
		opts = append(opts, awsconfig.WithRegion(t.Region))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("reading the AWS configuration (environment and shared files): %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("no region: set s3.region, or AWS_REGION, or a region in the AWS shared configuration")
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if t.Endpoint != "" {
			o.BaseEndpoint = aws.String(t.Endpoint)
		}
		o.UsePathStyle = t.PathStyle
		// S3-compatible stores (R2, MinIO, versitygw) do not all take the
		// SDK's default checksums; every upload carries Content-MD5.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	return s3blob.OpenBucket(ctx, client, t.Bucket, &s3blob.Options{RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired})
}
