package tfrunner

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// ProjectName is the provider's release name: .goreleaser.yml's project_name,
// the prefix of its archives and of its executable.
const ProjectName = "terraform-provider-docsadmin"

// VersionOverrideFile is the override file PinVersion writes into a working
// directory (Terraform and OpenTofu merge *_override.tf into the module).
const VersionOverrideFile = "docsadmin_version_override.tf"

// ArchiveName is the name of the release archive of version for goos/goarch,
// as .goreleaser.yml's archives.name_template makes it and as a filesystem
// mirror in the packed layout expects it.
func ArchiveName(version, goos, goarch string) string {
	return fmt.Sprintf("%s_%s_%s_%s.zip", ProjectName, version, goos, goarch)
}

// BinaryName is the name of the provider executable inside a release archive:
// .goreleaser.yml's builds.binary, "{{ .ProjectName }}_v{{ .Version }}", to
// which goreleaser adds ".exe" for Windows.
func BinaryName(version, goos string) string {
	name := ProjectName + "_v" + version
	if goos == "windows" {
		name += ".exe"
	}
	return name
}

// MirrorArchivePath is where a filesystem mirror in the packed layout keeps
// the archive of version for goos/goarch under addr, one of Addresses:
// <mirror>/<host>/<namespace>/<type>/<ArchiveName>. tools/mirror.sh lays out
// goreleaser's archives the same way (a test holds the two together).
func MirrorArchivePath(mirror, addr, version, goos, goarch string) string {
	return filepath.Join(mirror, filepath.FromSlash(addr), ArchiveName(version, goos, goarch))
}

// FilesystemMirror installs the provider, under every one of Addresses, from
// the filesystem mirror dir, as a user installs a provider from a mirror of
// its releases, and anything else as usual. The mirror holds version, whose
// release archives have the "zh:" checksums hashes (the SHA-256 sums of the
// archives, as in the release's SHA256SUMS; see LockChecksums). It needs
// terraform init (see Init).
func FilesystemMirror(dir, version string, hashes []string) Installation {
	addrs := make([]string, len(Addresses))
	for i, addr := range Addresses {
		addrs[i] = strconv.Quote(addr)
	}
	list := "[" + strings.Join(addrs, ", ") + "]"
	return Installation{
		block: "provider_installation {\n" +
			"  filesystem_mirror {\n" +
			"    path    = " + strconv.Quote(filepath.ToSlash(dir)) + "\n" +
			"    include = " + list + "\n" +
			"  }\n" +
			"  direct {\n" +
			"    exclude = " + list + "\n" +
			"  }\n" +
			"}\n",
		summary: fmt.Sprintf("filesystem_mirror %s (version %s)", dir, version),
		version: version,
		mirror:  dir,
		hashes:  slices.Clone(hashes),
	}
}

// BuildMirror is the quick way to a filesystem mirror: it builds the provider
// for the local platform as a release builds it (.goreleaser.yml's flags and
// ldflags, without goreleaser), packs it into the release's archive and lays
// that out in home/mirror for every one of Addresses. It returns the
// installation from that mirror; version must be a semantic version.
func (r *Runner) BuildMirror(ctx context.Context, version string) (Installation, error) {
	root, err := ModuleRoot()
	if err != nil {
		return Installation{}, err
	}
	if _, err := exec.LookPath("go"); err != nil {
		return Installation{}, fmt.Errorf("the go command is not on PATH (needed to build the provider): %w", err)
	}
	goos, goarch := runtime.GOOS, runtime.GOARCH
	bin := filepath.Join(r.home, "build", BinaryName(version, goos))
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+version, "-o", bin, ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	if out, err := cmd.CombinedOutput(); err != nil {
		return Installation{}, fmt.Errorf("go build of the provider: %w\n%s", err, out)
	}
	archive, err := packArchive(root, bin)
	if err != nil {
		return Installation{}, fmt.Errorf("pack the provider: %w", err)
	}
	return r.writeMirror(version, goos, goarch, archive)
}

// writeMirror lays archive, the release archive of version for goos and
// goarch, out in home/mirror for every one of Addresses, and returns the
// installation from that mirror.
func (r *Runner) writeMirror(version, goos, goarch string, archive []byte) (Installation, error) {
	dir := filepath.Join(r.home, "mirror")
	for _, addr := range Addresses {
		path := MirrorArchivePath(dir, addr, version, goos, goarch)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return Installation{}, err
		}
		if err := os.WriteFile(path, archive, 0o644); err != nil {
			return Installation{}, err
		}
	}
	sum := sha256.Sum256(archive)
	return FilesystemMirror(dir, version, []string{"zh:" + hex.EncodeToString(sum[:])}), nil
}

// archiveExtras are the files goreleaser puts next to the executable in
// every archive when a configuration names none (archives.files).
var archiveExtras = []string{"LICENSE*", "README*", "CHANGELOG*", "license*", "readme*", "changelog*"}

// packArchive builds the release archive of the executable at bin as
// goreleaser does: the executable and root's license, readme and changelog
// files at the archive's root, in name order.
func packArchive(root, bin string) ([]byte, error) {
	files := map[string]string{filepath.Base(bin): bin}
	for _, pattern := range archiveExtras {
		matches, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			if info, err := os.Stat(m); err == nil && info.Mode().IsRegular() {
				files[filepath.Base(m)] = m
			}
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := addFile(zw, name, files[name]); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func addFile(zw *zip.Writer, name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	hdr, err := zip.FileInfoHeader(info)
	if err != nil {
		return err
	}
	hdr.Name = name
	hdr.Method = zip.Deflate
	w, err := zw.CreateHeader(hdr)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, f)
	return err
}

// SnapshotMirror builds a snapshot release of the provider for the local
// platform with the pinned goreleaser (tools/mirror.sh, which builds
// goreleaser on first use), its dist directory in home/dist, and lays the
// archive out as a filesystem mirror in home/mirror. It returns the
// installation from that mirror and the release's SHA256SUMS file.
func (r *Runner) SnapshotMirror(ctx context.Context) (inst Installation, sums string, err error) {
	root, err := ModuleRoot()
	if err != nil {
		return Installation{}, "", err
	}
	dir := filepath.Join(r.home, "mirror")
	dist := filepath.Join(r.home, "dist")
	cmd := exec.CommandContext(ctx, filepath.Join(root, "tools", "mirror.sh"), dir)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "MIRROR_DIST="+dist)
	cmd.WaitDelay = waitDelay
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Installation{}, "", fmt.Errorf("tools/mirror.sh: %w\n%s", err, stderr.Bytes())
	}
	version := lastLine(out)
	if version == "" {
		return Installation{}, "", fmt.Errorf("tools/mirror.sh printed no version\n%s", stderr.Bytes())
	}
	sums = filepath.Join(dist, ProjectName+"_"+version+"_SHA256SUMS")
	hashes, err := LockChecksums(sums, version)
	if err != nil {
		return Installation{}, "", fmt.Errorf("the snapshot's checksums: %w", err)
	}
	return FilesystemMirror(dir, version, hashes), sums, nil
}

func lastLine(b []byte) string {
	var last string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			last = s
		}
	}
	return last
}

// PinVersion writes VersionOverrideFile into dir: it asks for exactly the
// version the installed mirror holds, as a configuration must for a
// prerelease, without editing the configuration's own files. It writes
// nothing for an installation that is not a mirror.
func (r *Runner) PinVersion(dir string) error {
	if r.inst.version == "" {
		return nil
	}
	content := fmt.Sprintf(`# The filesystem mirror holds version %[1]s of the provider. Terraform
# installs a prerelease only when a configuration asks for exactly it.
terraform {
  required_providers {
    docsadmin = {
      source  = "docsadmin/docsadmin"
      version = %[1]q
    }
  }
}
`, r.inst.version)
	if err := os.WriteFile(filepath.Join(dir, VersionOverrideFile), []byte(content), 0o600); err != nil {
		return fmt.Errorf("pin the provider version: %w", err)
	}
	return nil
}

// LockFileName is Terraform's and OpenTofu's dependency lock file.
const LockFileName = ".terraform.lock.hcl"

// LockFile is the content of a dependency lock file that records version of
// the provider at addr (one of Addresses), exactly, with hashes: what a
// careful user writes from a release's SHA256SUMS before installing it from
// a mirror, so that init checks the mirrored archive against the release's
// checksums and adds its h1: hash.
func LockFile(addr, version string, hashes []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider %q {\n  version     = %q\n  constraints = %q\n  hashes = [\n", addr, version, version)
	for _, h := range hashes {
		fmt.Fprintf(&b, "    %q,\n", h)
	}
	b.WriteString("  ]\n}\n")
	return b.String()
}

// Init installs the provider from the mirror in dir as a careful user does:
// it asks for exactly the mirrored version (PinVersion); where dir has no
// lock file yet, it writes one with the release's zh: checksums for every
// one of Addresses (Terraform and OpenTofu each keep the entry of their own
// registry and drop the other); then it runs terraform init, which verifies
// the archive against those checksums and records its h1: hash. Init's
// output goes to stdout and stderr; opts are init's options, such as
// tfexec.Upgrade(true) to move a lock file to the mirror's version.
func (r *Runner) Init(ctx context.Context, dir string, stdout, stderr io.Writer, opts ...tfexec.InitOption) error {
	if err := r.PinVersion(dir); err != nil {
		return err
	}
	if r.inst.version != "" && len(r.inst.hashes) > 0 {
		lock := filepath.Join(dir, LockFileName)
		if _, err := os.Stat(lock); errors.Is(err, os.ErrNotExist) {
			entries := make([]string, len(Addresses))
			for i, addr := range Addresses {
				entries[i] = LockFile(addr, r.inst.version, r.inst.hashes)
			}
			if err := os.WriteFile(lock, []byte(strings.Join(entries, "\n")), 0o600); err != nil {
				return fmt.Errorf("write the lock file: %w", err)
			}
		}
	}
	tf, err := r.Workdir(dir, nil)
	if err != nil {
		return err
	}
	// terraform-exec asks for the version before init, printing it: ask
	// first, quietly, so that only init's own output is shown.
	if _, _, err := tf.Version(ctx, false); err != nil {
		return fmt.Errorf("%s version: %w", r.terraform, err)
	}
	tf.SetStdout(stdout)
	tf.SetStderr(stderr)
	if err := tf.Init(ctx, opts...); err != nil {
		return fmt.Errorf("terraform init: %w", err)
	}
	return nil
}

// LockChecksums reads a release's SHA256SUMS file and returns the "zh:"
// hashes of its archives of version, in the file's order: what a registry
// install records in .terraform.lock.hcl for every platform.
func LockChecksums(sums, version string) ([]string, error) {
	b, err := os.ReadFile(sums)
	if err != nil {
		return nil, err
	}
	prefix := ProjectName + "_" + version + "_"
	var hashes []string
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		name := strings.TrimPrefix(f[1], "*")
		if strings.HasPrefix(name, prefix) && strings.HasSuffix(name, ".zip") {
			hashes = append(hashes, "zh:"+f[0])
		}
	}
	if len(hashes) == 0 {
		return nil, errors.New(sums + " lists no archive of " + version)
	}
	return hashes, nil
}
