package storetest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/objectstore"
)

// The S3 server's region and root credentials.
const (
	s3Region = "eu-west-1"
	s3Access = "STORETESTACCESSKEY"
	s3Secret = "storetest-secret-key-0123456789"
)

var versitygw = tool{
	name:   "versitygw",
	pins:   []string{"versitygw/go.mod", "versitygw/go.sum"},
	path:   "versitygw",
	script: "versitygw.sh",
}

// S3 starts versitygw, serving S3 in s3Region from a temporary directory
// (posix backend, metadata in a sidecar directory, so that the file
// system's extended attributes do not matter), with root credentials.
func S3(t testing.TB) *Server {
	t.Helper()
	bin := versitygw.find(t)
	dir := t.TempDir()
	data, meta := filepath.Join(dir, "data"), filepath.Join(dir, "meta")
	for _, d := range []string{data, meta} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "--port", addr, "--region", s3Region, "--keep-alive", "--quiet",
		"posix", "--sidecar", meta, data)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+s3Access, "ROOT_SECRET_ACCESS_KEY="+s3Secret)
	serve(t, "versitygw", cmd, addr)

	s := &Server{
		Name: objectstore.KindS3,
		Target: objectstore.Target{
			Kind:      objectstore.KindS3,
			Bucket:    bucketName,
			Region:    s3Region,
			Endpoint:  "http://" + addr,
			PathStyle: true,
		},
		Env: append([]string{"AWS_ACCESS_KEY_ID=" + s3Access, "AWS_SECRET_ACCESS_KEY=" + s3Secret}, emptyAWSFiles(t)...),
	}
	ctx, cancel := context.WithTimeout(t.Context(), setupTimeout)
	defer cancel()
	_, err := s3Client(s).CreateBucket(ctx, &s3.CreateBucketInput{
		Bucket:                    aws.String(bucketName),
		CreateBucketConfiguration: &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraint(s3Region)},
	})
	if err != nil {
		t.Fatalf("creating the S3 bucket: %v", err)
	}
	return s
}

// s3Client is a client of the S3 server with its root credentials,
// configured from nothing in the environment.
func s3Client(s *Server) *s3.Client {
	return s3.New(s3.Options{
		Region:       s.Target.Region,
		BaseEndpoint: aws.String(s.Target.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(s3Access, s3Secret, ""),
	})
}
