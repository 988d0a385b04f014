package main

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// buildRevision builds the provider as it was at the git revision rev and
// returns a runner that installs that build, all below home. The source
// comes from the project's own history (git archive), so the baseline is
// the code users ran, not a setting of today's code.
func buildRevision(ctx context.Context, terraform, home, rev string) (*tfrunner.Runner, error) {
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		return nil, err
	}
	src := filepath.Join(home, "src")
	archive := exec.CommandContext(ctx, "git", "-C", root, "archive", "--format=tar", rev)
	var stderr strings.Builder
	archive.Stderr = &stderr
	out, err := archive.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := archive.Start(); err != nil {
		return nil, fmt.Errorf("git archive %s: %w (the baseline is built from the project's git history)", rev, err)
	}
	extractErr := extract(out, src)
	_, _ = io.Copy(io.Discard, out) // after a failed extract, git must not block on a full pipe
	if err := archive.Wait(); err != nil {
		return nil, fmt.Errorf("git archive %s: %w: %s (a shallow clone lacks it: git fetch --unshallow, or pass -baseline)", rev, err, strings.TrimSpace(stderr.String()))
	}
	if extractErr != nil {
		return nil, fmt.Errorf("unpacking %s: %w", rev, extractErr)
	}
	bin := filepath.Join(home, "bin")
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "terraform-provider-docsadmin"), ".")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build of %s: %w\n%s", rev, err, out)
	}
	r, err := tfrunner.New(terraform, home)
	if err != nil {
		return nil, err
	}
	return r, r.Install(tfrunner.DevOverrides(bin))
}

// extract unpacks the regular files and directories of a tar stream into dir.
func extract(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(path, filepath.Clean(dir)+string(filepath.Separator)) {
			continue // git archive writes no such entry; never write outside dir
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(path, 0o755)
		case tar.TypeReg:
			err = writeFile(path, tr)
		}
		if err != nil {
			return err
		}
	}
}

func writeFile(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	return errors.Join(err, f.Close())
}
