package tfrunner

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// ToolsCache is the directory where the project's tooling keeps what it
// builds once: Terraform and OpenTofu (tools/terraform.sh,
// tools/opentofu.sh), goreleaser, and the releases of earlier revisions
// (RevisionMirror). DOCSADMIN_TOOLS_CACHE, else
// $XDG_CACHE_HOME/terraform-provider-docsadmin, else
// ~/.cache/terraform-provider-docsadmin, as in the scripts.
func ToolsCache() (string, error) {
	if dir := os.Getenv("DOCSADMIN_TOOLS_CACHE"); dir != "" {
		return dir, nil
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no tools cache: neither DOCSADMIN_TOOLS_CACHE, XDG_CACHE_HOME nor a home directory: %w", err)
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "terraform-provider-docsadmin"), nil
}

// ResolveRevision returns the full commit id of rev in the repository at
// root. A revision missing from a shallow clone is an error that says so,
// and how to fetch the history.
func ResolveRevision(ctx context.Context, root, rev string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--verify", "--quiet", rev+"^{commit}").Output()
	if err == nil {
		return strings.TrimSpace(string(out)), nil
	}
	shallow, serr := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--is-shallow-repository").Output()
	switch {
	case serr != nil:
		return "", fmt.Errorf("revision %s: %s is not a git repository with its history (%w); builds of earlier revisions come from the project's git history: clone it with git", rev, root, serr)
	case strings.TrimSpace(string(shallow)) == "true":
		return "", fmt.Errorf("revision %s is not in this clone of the repository: it is shallow. Fetch the whole history (git fetch --unshallow, or actions/checkout with fetch-depth: 0) and run again", rev)
	default:
		return "", fmt.Errorf("revision %s is not in the repository at %s (git rev-parse found no such commit)", rev, root)
	}
}

// ExportRevision writes the files of the git revision rev of the repository
// at root into dir (git archive), as a release build would check it out.
func ExportRevision(ctx context.Context, root, rev, dir string) error {
	archive := exec.CommandContext(ctx, "git", "-C", root, "archive", "--format=tar", rev)
	var stderr strings.Builder
	archive.Stderr = &stderr
	out, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	if err := archive.Start(); err != nil {
		return fmt.Errorf("git archive %s: %w (builds of earlier revisions come from the project's git history)", rev, err)
	}
	extractErr := extractTar(out, dir)
	_, _ = io.Copy(io.Discard, out) // after a failed extract, git must not block on a full pipe
	if err := archive.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %w: %s (a shallow clone lacks it: git fetch --unshallow)", rev, err, strings.TrimSpace(stderr.String()))
	}
	if extractErr != nil {
		return fmt.Errorf("unpacking %s: %w", rev, extractErr)
	}
	return nil
}

// extractTar unpacks the regular files and directories of a tar stream into
// dir.
func extractTar(r io.Reader, dir string) error {
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
			err = writeFrom(path, tr)
		}
		if err != nil {
			return err
		}
	}
}

func writeFrom(path string, r io.Reader) error {
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

// RevisionVersion is the version under which RevisionMirror releases the
// build of a revision: 0.0.1-<rev>, a prerelease below any real release. A
// revision of digits only gets a "g" in front, since a numeric prerelease
// identifier may not start with 0.
func RevisionVersion(rev string) string {
	if strings.Trim(rev, "0123456789") == "" {
		rev = "g" + rev
	}
	return "0.0.1-" + rev
}

// RevisionMirror installs the provider as it was at the git revision rev of
// this repository, as a user installs a release: the source of that
// revision (ExportRevision) built with its own go.mod the way a release
// builds it, packed into the release's archive under RevisionVersion(rev)
// and laid out as a filesystem mirror in home/mirror. The archive is cached
// under ToolsCache()/revisions, keyed by the full commit id, so a revision
// is built once. It needs the revision in the local git history (see
// ResolveRevision). It returns the installation from that mirror.
func (r *Runner) RevisionMirror(ctx context.Context, rev string) (Installation, error) {
	root, err := ModuleRoot()
	if err != nil {
		return Installation{}, err
	}
	commit, err := ResolveRevision(ctx, root, rev)
	if err != nil {
		return Installation{}, err
	}
	cache, err := ToolsCache()
	if err != nil {
		return Installation{}, err
	}
	version := RevisionVersion(rev)
	goos, goarch := runtime.GOOS, runtime.GOARCH
	cached := filepath.Join(cache, "revisions", commit, ArchiveName(version, goos, goarch))
	archive, err := os.ReadFile(cached)
	if errors.Is(err, os.ErrNotExist) {
		archive, err = buildRevisionArchive(ctx, root, commit, version, cached)
	}
	if err != nil {
		return Installation{}, err
	}
	inst, err := r.writeMirror(version, goos, goarch, archive)
	if err != nil {
		return Installation{}, err
	}
	inst.summary = fmt.Sprintf("filesystem_mirror %s (version %s, built from revision %s)", inst.MirrorDir(), version, commit)
	return inst, nil
}

// buildRevisionArchive builds the release archive of commit into cached and
// returns it. The build happens in a temporary directory and the archive is
// renamed into place, so that concurrent builds of one revision never leave
// a partial archive behind.
func buildRevisionArchive(ctx context.Context, root, commit, version, cached string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "docsadmin-revision-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	if err := ExportRevision(ctx, root, commit, src); err != nil {
		return nil, err
	}
	goos := runtime.GOOS
	bin := filepath.Join(tmp, "build", BinaryName(version, goos))
	// The revision's own go.mod and go.sum decide its dependencies; -mod=mod
	// lets the go command fetch them from the module proxy (or the module
	// cache) and check them against go.sum. GOWORK=off: no workspace of the
	// machine may swap a module.
	cmd := exec.CommandContext(ctx, "go", "build", "-mod=mod", "-trimpath", "-ldflags", "-s -w -X main.version="+version, "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build of revision %s: %w\n%s", commit, err, out)
	}
	archive, err := packArchive(src, bin)
	if err != nil {
		return nil, fmt.Errorf("pack the build of revision %s: %w", commit, err)
	}
	if err := os.MkdirAll(filepath.Dir(cached), 0o755); err != nil {
		return nil, err
	}
	part := cached + "." + filepath.Base(tmp)
	if err := os.WriteFile(part, archive, 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(part, cached); err != nil {
		return nil, errors.Join(err, os.Remove(part))
	}
	return archive, nil
}
