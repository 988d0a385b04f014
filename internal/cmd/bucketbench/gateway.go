package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/objectstore"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// The gateway's region and root credentials.
const (
	region    = "eu-west-1"
	accessKey = "BUCKETBENCHACCESSKEY"
	secretKey = "bucketbench-secret-key-0123456789"
)

// isolateAWS leaves this process, and so Terraform, the provider and the
// AWS CLI it starts, with the gateway's credentials and nothing of the
// machine's AWS settings: no inherited AWS_ variable, empty shared files in
// dir, no instance metadata.
func isolateAWS(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			if err := os.Unsetenv(k); err != nil {
				return err
			}
		}
	}
	env := map[string]string{
		"AWS_ACCESS_KEY_ID":           accessKey,
		"AWS_SECRET_ACCESS_KEY":       secretKey,
		"AWS_REGION":                  region,
		"AWS_DEFAULT_REGION":          region,
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_PAGER":                   "",
	}
	for k, v := range env {
		if k == "AWS_CONFIG_FILE" || k == "AWS_SHARED_CREDENTIALS_FILE" {
			if err := os.WriteFile(v, nil, 0o600); err != nil {
				return err
			}
		}
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}

// gateway is versitygw serving S3 on loopback from a directory.
type gateway struct {
	endpoint string
	cmd      *exec.Cmd
	exited   chan struct{}
	log      string
}

// startGateway starts the versitygw that tools/versitygw.sh builds (on
// first use) on a free loopback port, its buckets and metadata under dir.
func startGateway(ctx context.Context, dir string) (*gateway, error) {
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	build := exec.CommandContext(ctx, filepath.Join(root, "tools", "versitygw.sh"))
	build.Stderr = &stderr
	out, err := build.Output()
	if err != nil {
		return nil, fmt.Errorf("tools/versitygw.sh: %w\n%s", err, stderr.String())
	}
	bin := strings.TrimSpace(string(out))
	data, meta := filepath.Join(dir, "data"), filepath.Join(dir, "meta")
	for _, d := range []string{data, meta} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	g := &gateway{endpoint: "http://" + addr, exited: make(chan struct{}), log: filepath.Join(dir, "versitygw.log")}
	logFile, err := os.Create(g.log)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own descriptor
	g.cmd = exec.Command(bin, "--port", addr, "--region", region, "--keep-alive", "--quiet", "posix", "--sidecar", meta, data)
	g.cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+accessKey, "ROOT_SECRET_ACCESS_KEY="+secretKey)
	g.cmd.Stdout, g.cmd.Stderr = logFile, logFile
	if err := g.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting versitygw: %w", err)
	}
	go func() { _ = g.cmd.Wait(); close(g.exited) }()
	deadline := time.Now().Add(90 * time.Second)
	for {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return g, nil
		}
		select {
		case <-g.exited:
			return nil, fmt.Errorf("versitygw stopped before it listened:\n%s", g.output())
		case <-ctx.Done():
			g.stop()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			g.stop()
			return nil, fmt.Errorf("versitygw did not listen on %s within 90 s:\n%s", addr, g.output())
		}
	}
}

func (g *gateway) output() string {
	out, _ := os.ReadFile(g.log)
	return string(out)
}

// stop ends the gateway: SIGTERM, then SIGKILL after 10 seconds.
func (g *gateway) stop() {
	_ = g.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-g.exited:
	case <-time.After(10 * time.Second):
		_ = g.cmd.Process.Kill()
		<-g.exited
	}
}

// cpu is the gateway's CPU time so far, user and system, from Linux's
// /proc (0 elsewhere). The kernel counts it in ticks of USER_HZ, 100 a
// second on every Linux architecture Go runs on.
func (g *gateway) cpu() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", g.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The fields after the command's name, which may hold spaces and
	// parentheses: state first, then utime and stime at 12 and 13.
	end := strings.LastIndexByte(string(data), ')')
	fields := strings.Fields(string(data)[end+1:])
	if end < 0 || len(fields) < 13 {
		return 0
	}
	user, err1 := strconv.ParseInt(fields[11], 10, 64)
	sys, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(user+sys) * 10 * time.Millisecond
}

// freeAddr is a loopback address no one listens on.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// target is the place under bucket where the site is published.
func (g *gateway) target(bucket string) objectstore.Target {
	return objectstore.Target{Kind: objectstore.KindS3, Bucket: bucket, Prefix: prefix, Region: region, Endpoint: g.endpoint, PathStyle: true}
}

// client is a client of the gateway configured from nothing in the
// environment, to create buckets and look at them.
func (g *gateway) client() *s3.Client {
	return s3.New(s3.Options{
		Region:       region,
		BaseEndpoint: aws.String(g.endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(accessKey, secretKey, ""),
	})
}

func (g *gateway) createBucket(ctx context.Context, name string) error {
	_, err := g.client().CreateBucket(ctx, &s3.CreateBucketInput{
		Bucket:                    aws.String(name),
		CreateBucketConfiguration: &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraint(region)},
	})
	if err != nil {
		return fmt.Errorf("creating the bucket %s: %w", name, err)
	}
	return nil
}

// listing is the ETag of every object of bucket under prefix, by key.
func (g *gateway) listing(ctx context.Context, bucket, prefix string) (map[string]string, error) {
	out := map[string]string{}
	pages := s3.NewListObjectsV2Paginator(g.client(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing %s/%s: %w", bucket, prefix, err)
		}
		for _, obj := range page.Contents {
			out[aws.ToString(obj.Key)] = aws.ToString(obj.ETag)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("listing " + bucket + "/" + prefix + ": no objects")
	}
	return out, nil
}
