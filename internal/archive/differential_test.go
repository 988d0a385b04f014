package archive_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
)

// The differential test holds the verifier to its promise: every archive it
// accepts unpacks to the same tree, inside the directory it is unpacked
// into, with every mainstream unpacker. It verifies hostile archives (the
// corpus of hostile_test.go and random ones built to exploit the format's
// corners) and archives written by the tools themselves; each accepted one
// is unpacked by GNU tar, bsdtar, busybox tar and Python's tarfile (with and
// without filter='data') in a sandbox of its own. The test fails when an
// unpacker fails, writes outside its sandbox, leaves a link that resolves
// outside the site, or builds a tree that differs from the others'; when a
// refusal carries no reason; when the tools' own archives are refused; and
// when what they write that unpackers read differently (GNU tar's sparse
// files, its V7 format) is accepted.
//
// The unpackers must be installed (make tools: tools/debian-packages.sh).
// Under make test and CI (testtools.Env set) a missing one fails the test
// rather than skipping it; without the variable the test skips, naming it.

// escapeMarker is where an absolute link of a generated archive points: it
// must never exist after an unpacking.
const escapeMarker = "/tmp/docsadmin-differential-escape"

type unpacker struct {
	name string
	// cmd returns the command unpacking archive into dir; nil for Python,
	// which unpacks every archive in one process.
	cmd func(archive, dir string) *exec.Cmd
}

var unpackers = []unpacker{
	{"gnu-tar", func(a, d string) *exec.Cmd { return exec.Command("tar", "-xzf", a, "-C", d) }},
	{"bsdtar", func(a, d string) *exec.Cmd { return exec.Command("bsdtar", "-xzf", a, "-C", d) }},
	{"busybox", func(a, d string) *exec.Cmd { return exec.Command("busybox", "tar", "-xzf", a, "-C", d) }},
	{"python-data", nil},
	{"python-fully_trusted", nil},
}

const pythonUnpack = `
import json, sys, tarfile
out = []
for job in json.load(sys.stdin):
    try:
        with tarfile.open(job["archive"], "r:gz", errorlevel=2) as tf:
            tf.extractall(job["dest"], filter=job["filter"])
        out.append("")
    except Exception as e:
        out.append("%s: %s" % (type(e).__name__, e))
json.dump(out, sys.stdout)
`

// requireTools fails the test, saying how to install them, when an
// unpacker is missing.
func requireTools(t *testing.T) {
	t.Helper()
	var missing []string
	check := func(what string, name string, args ...string) {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			missing = append(missing, fmt.Sprintf("%s (%v: %s)", what, err, bytes.TrimSpace(out)))
		}
	}
	check("GNU tar", "sh", "-c", "tar --version | grep -q 'GNU tar'")
	check("bsdtar", "bsdtar", "--version")
	check("busybox tar", "busybox", "tar", "--help")
	check("python3 with tarfile filters", "python3", "-c", "import tarfile; tarfile.data_filter")
	check("git", "git", "--version")
	if len(missing) > 0 {
		testtools.Missing(t, "every unpacker of the differential test", testtools.MakeTools+
			" (apt-get update && apt-get install -y --no-install-recommends libarchive-tools busybox)",
			fmt.Errorf("missing: %s", strings.Join(missing, "; ")))
	}
}

// candidate is an archive to verify, and whether it must be accepted.
type candidate struct {
	name string
	data []byte
	must bool // written by a tool or valid by construction: refusing it is a failure
	// refuse is the kind of error it must be refused with, when it must.
	refuse error
}

func TestDifferentialUnpackers(t *testing.T) {
	if testing.Short() {
		t.Skip("unpacks a thousand generated archives with five unpackers: slow; runs in make test")
	}
	requireTools(t)
	_ = os.RemoveAll(escapeMarker) // a failed run's: this run judges itself
	var cands []candidate
	for _, h := range hostile(t) {
		cands = append(cands, candidate{name: "hostile/" + h.name, data: h.data})
	}
	for _, r := range rejections(t) {
		cands = append(cands, candidate{name: "rejection/" + r.name, data: r.data})
	}
	for _, v := range tricky(t) {
		cands = append(cands, candidate{name: "tricky/" + v.name, data: v.data, must: true})
	}
	cands = append(cands, toolArchives(t)...)
	seed, count := uint64(1), 1000
	if s := os.Getenv("DIFFERENTIAL_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	if s := os.Getenv("DIFFERENTIAL_COUNT"); s != "" {
		count, _ = strconv.Atoi(s)
	}
	rng := rand.New(rand.NewPCG(seed, 21))
	for i := range count {
		cands = append(cands, candidate{name: fmt.Sprintf("random/%d-%d", seed, i), data: randomArchive(rng)})
	}

	root := t.TempDir()
	var accepted []candidate
	refused := 0
	for _, c := range cands {
		_, err := archive.Verify(bytes.NewReader(c.data))
		if err != nil {
			var aerr *archive.Error
			if !errors.As(err, &aerr) || aerr.Reason == "" || aerr.Kind == nil {
				t.Errorf("%s: refused without a reason: %v", c.name, err)
			}
			if c.must {
				t.Errorf("%s: refused: %v", c.name, err)
			}
			if c.refuse != nil && !errors.Is(err, c.refuse) {
				t.Errorf("%s: refused with %v, want %v", c.name, err, c.refuse)
			}
			refused++
			continue
		}
		checkAsGoReadsIt(t, c.data)
		if c.refuse != nil {
			t.Errorf("%s: accepted, want refused as %v", c.name, c.refuse)
		}
		accepted = append(accepted, c)
	}
	t.Logf("%d archives: %d refused, %d accepted and unpacked by %d unpackers", len(cands), refused, len(accepted), len(unpackers))

	type job struct {
		Archive string `json:"archive"`
		Dest    string `json:"dest"`
		Filter  string `json:"filter"`
	}
	var jobs []job
	var jobCase []int
	for i, c := range accepted {
		dir := filepath.Join(root, strconv.Itoa(i))
		file := filepath.Join(dir, "archive.tar.gz")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, u := range unpackers {
			site := filepath.Join(dir, u.name, "site")
			if err := os.MkdirAll(site, 0o755); err != nil {
				t.Fatal(err)
			}
			if u.cmd == nil {
				jobs = append(jobs, job{Archive: file, Dest: site, Filter: strings.TrimPrefix(u.name, "python-")})
				jobCase = append(jobCase, i)
				continue
			}
			cmd := u.cmd(file, site)
			cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: %s fails to unpack an accepted archive: %v: %s", c.name, u.name, err, bytes.TrimSpace(out))
			}
		}
	}
	in, _ := json.Marshal(jobs)
	py := exec.Command("python3", "-c", pythonUnpack)
	py.Stdin = bytes.NewReader(in)
	py.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	out, err := py.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var results []string
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(jobs) {
		t.Fatalf("python3 answered %q (%v)", out, err)
	}
	for k, res := range results {
		if res != "" {
			t.Errorf("%s: python with filter=%s fails to unpack an accepted archive: %s", accepted[jobCase[k]].name, jobs[k].Filter, res)
		}
	}

	for i, c := range accepted {
		dir := filepath.Join(root, strconv.Itoa(i))
		checkOnly(t, c.name, dir, append([]string{"archive.tar.gz"}, names(unpackers)...))
		listings := map[string]string{}
		for _, u := range unpackers {
			checkOnly(t, c.name+" unpacked by "+u.name, filepath.Join(dir, u.name), []string{"site"})
			listing, err := list(filepath.Join(dir, u.name, "site"))
			if err != nil {
				t.Errorf("%s unpacked by %s: %v", c.name, u.name, err)
			}
			listings[u.name] = listing
		}
		first := unpackers[0].name
		for _, u := range unpackers[1:] {
			if listings[u.name] != listings[first] {
				t.Errorf("%s: %s and %s unpack different trees:\n%s:\n%s\n%s:\n%s", c.name, first, u.name, first, listings[first], u.name, listings[u.name])
			}
		}
		if !strings.Contains(listings[first], "index.html\tfile\t") {
			t.Errorf("%s: no index.html file once unpacked:\n%s", c.name, listings[first])
		}
	}
	if _, err := os.Lstat(escapeMarker); err == nil {
		t.Errorf("an unpacker wrote %s", escapeMarker)
		_ = os.RemoveAll(escapeMarker)
	}
}

func names(us []unpacker) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.name)
	}
	return out
}

// checkOnly fails when dir holds anything but want: an unpacker wrote
// outside the directory it was given.
func checkOnly(t *testing.T, what, dir string, want []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	for _, e := range entries {
		if !slices.Contains(want, e.Name()) {
			t.Errorf("%s: %s was written outside the site, in %s", what, e.Name(), dir)
		}
	}
}

// list describes the unpacked tree, one line per path: type, size and
// SHA-256 of files, targets of links. It fails on a link that resolves
// outside site and on anything but files, directories and links.
func list(site string) (string, error) {
	var lines []string
	var problems []error
	err := filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(site, p)
		rel = filepath.ToSlash(rel)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch mode := info.Mode(); {
		case mode.IsDir():
			lines = append(lines, rel+"\tdir")
		case mode.IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			lines = append(lines, fmt.Sprintf("%s\tfile\t%d\t%s", rel, len(data), hex.EncodeToString(sum[:8])))
		case mode&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			lines = append(lines, rel+"\tlink\t"+target)
			if !resolvesInside(site, rel) {
				problems = append(problems, fmt.Errorf("the link %s -> %s resolves outside the site", rel, target))
			}
		default:
			problems = append(problems, fmt.Errorf("%s is a %v", rel, mode.Type()))
		}
		return nil
	})
	if err != nil {
		problems = append(problems, err)
	}
	return strings.Join(lines, "\n"), errors.Join(problems...)
}

// resolvesInside follows the link at rel inside site as the kernel would,
// on the unpacked tree: it reports whether the walk stays inside. A missing
// component ends the walk (the link dangles).
func resolvesInside(site, rel string) bool {
	target, err := os.Readlink(filepath.Join(site, filepath.FromSlash(rel)))
	if err != nil || path.IsAbs(target) {
		return false
	}
	pending := append(strings.Split(path.Dir(rel), "/"), strings.Split(target, "/")...)
	var cur []string
	for hops := 0; len(pending) > 0; {
		part := pending[0]
		pending = pending[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return false
			}
			cur = cur[:len(cur)-1]
			continue
		}
		cur = append(cur, part)
		p := filepath.Join(append([]string{site}, cur...)...)
		info, err := os.Lstat(p)
		if err != nil {
			return true // dangling: nothing outside is reached
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if hops++; hops > 40 {
				return true // a loop: resolves nowhere
			}
			next, err := os.Readlink(p)
			if err != nil || path.IsAbs(next) {
				return false
			}
			cur = cur[:len(cur)-1]
			pending = append(strings.Split(next, "/"), pending...)
		}
	}
	return true
}

// tricky are valid archives that use the corners of the format the
// verifier still accepts: each must be accepted and unpack alike.
func tricky(t testing.TB) []rejection {
	long := strings.Repeat("long-directory-name-", 6)
	longFile := long + "/" + strings.Repeat("page", 30) + ".html"
	oldReg := rfile("old.html", "old")
	oldReg.typ = 0
	small256 := rfile("b256.html", "hello")
	small256.sizeField = []byte{0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5}
	prefixed := rfile(strings.Repeat("p", 90)+".html", "prefixed")
	prefixed.prefix = long
	bigUID := rfile("uid.html", "uid")
	bigUID.patch = map[int][]byte{108: {0x80, 0, 0, 0, 0, 0, 0, 0x10}, 136: {0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}
	oddName := pax('x', "PaxHeaders/odd", "path", "odd\nname with  spaces\t.html")
	noEnd := append(rindex.bytes(), rfile("b.html", "b").bytes()...)
	padded := append(rawTar(rindex, rfile("b.html", "b")), make([]byte, 10240-2048)...)
	return []rejection{
		{name: "git archive's global comment", data: rawTgz(t, pax('g', "pax_global_header", "comment", "5f0c3e6d3c1f"), rindex)},
		{name: "GNU long name and pax path that agree", data: rawTgz(t, rindex, gnuLong('L', longFile), pax('x', "PaxHeaders/x", "path", longFile), rfile("decoy", "same"))},
		{name: "pax path over a decoy name", data: rawTgz(t, rindex, pax('x', "PaxHeaders/x", "path", longFile, "mtime", "1764000000.5", "SCHILY.xattr.user.x", "y"), rfile("decoy.html", "pax"))},
		{name: "GNU long name and long link", data: rawTgz(t, rindex, gnuLong('L', longFile), rfile("decoy", "gnu"), gnuLong('K', "../"+longFile), rsym("up/l", "decoy2"))},
		{name: "pax link path", data: rawTgz(t, rindex, pax('x', "PaxHeaders/l", "linkpath", "index.html"), rsym("l", "decoy"))},
		{name: "ustar prefix", data: rawTgz(t, rindex, prefixed)},
		{name: "old regular type", data: rawTgz(t, rindex, oldReg)},
		{name: "base-256 size", data: rawTgz(t, rindex, small256)},
		{name: "base-256 uid and mtime", data: rawTgz(t, rindex, bigUID)},
		{name: "a name with a newline, a tab and spaces", data: rawTgz(t, rindex, oddName, rfile("decoy", "odd"))},
		{name: "pax size equal to the header's", data: rawTgz(t, rindex, pax('x', "PaxHeaders/s", "size", "5"), rfile("s.html", "hello"))},
		{name: "no end-of-archive marker", data: gz(t, noEnd)},
		{name: "padded to a 10 KiB record", data: gz(t, padded)},
		{name: "index.html a hard link to an earlier file", data: rawTgz(t, rfile("en/index.html", indexPage), rhard("index.html", "en/index.html"))},
		{name: "directories after their files, named twice", data: rawTgz(t, rindex, rfile("a/b/c.html", "c"), rdir("a/b/"), rdir("a/"), rdir("./a"), rdir("./"))},
		{name: "links through links that stay inside", data: rawTgz(t, rindex, rdir("v2/"), rfile("v2/p.html", "p"), rsym("latest", "v2"), rsym("p.html", "latest/p.html"), rsym("up", "latest/.."), rsym("v2/home", "../latest/../index.html"))},
		{name: "a link to a later link", data: rawTgz(t, rindex, rsym("first", "second/p.html"), rdir("v/"), rfile("v/p.html", "p"), rsym("second", "v"))},
		{name: "dangling links", data: rawTgz(t, rindex, rsym("gone", "missing.html"), rsym("a/gone", "../missing/x"))},
		{name: "names with dots and double slashes", data: rawTgz(t, rindex, rfile("./a//b/./c.html", "c"), rfile("a..b/..c.html", "d"), rfile("début rapide.html", "é"))},
		{name: "hard links to files", data: rawTgz(t, rindex, rfile("a/x.html", "x"), rhard("b/y.html", "a/x.html"), rhard("c.html", "./a//x.html"))},
	}
}

// toolArchives are archives written by the tools a site's build uses: each
// must be accepted.
func toolArchives(t *testing.T) []candidate {
	t.Helper()
	work := t.TempDir()
	long := strings.Repeat("long-directory-name-", 6)
	longFile := long + "/" + strings.Repeat("page", 30) + ".html"
	full := filepath.Join(work, "full")
	simple := filepath.Join(work, "simple")
	for _, src := range []string{full, simple} {
		files := map[string]string{"index.html": indexPage, "guides/a.html": "a", "guides/début rapide.html": "é", "assets/img/logo.svg": "<svg/>", ".nojekyll": ""}
		if src == full {
			files[longFile] = "long"
		}
		for name, body := range files {
			p := filepath.Join(src, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		must(t, os.MkdirAll(filepath.Join(src, "empty"), 0o755))
		must(t, os.Symlink("guides/a.html", filepath.Join(src, "a.html")))
		must(t, os.Symlink("guides", filepath.Join(src, "latest")))
		must(t, os.Link(filepath.Join(src, "guides/a.html"), filepath.Join(src, "copy.html")))
		if src == full {
			must(t, os.Symlink(longFile, filepath.Join(src, "deep.html")))
		}
	}
	out := func(name string) string { return filepath.Join(work, name+".tar.gz") }
	run := func(dir string, name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "GIT_AUTHOR_NAME=Docs", "GIT_AUTHOR_EMAIL=docs@example.com",
			"GIT_COMMITTER_NAME=Docs", "GIT_COMMITTER_EMAIL=docs@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, b)
		}
	}
	var made []string
	for _, f := range []string{"gnu", "oldgnu", "posix", "ustar"} {
		src := full
		if f == "ustar" {
			src = simple
		}
		run(src, "tar", "--format="+f, "-czf", out("gnu-tar-"+f), ".")
		made = append(made, "gnu-tar-"+f)
	}
	run(full, "tar", "-czf", out("gnu-tar-default-names"), "index.html", "guides", "a.html", "copy.html", "latest", "deep.html", long)
	made = append(made, "gnu-tar-default-names")
	for _, f := range []string{"", "pax", "ustar", "gnutar"} {
		src, args := full, []string{"-czf", out("bsdtar-" + f), "."}
		if f != "" {
			args = append([]string{"--format", f}, args...)
		}
		if f == "ustar" {
			src = simple
		}
		run(src, "bsdtar", args...)
		made = append(made, "bsdtar-"+f)
	}
	run(full, "busybox", "tar", "-czf", out("busybox"), ".")
	made = append(made, "busybox")
	for _, f := range []string{"PAX", "GNU", "USTAR"} {
		src := full
		if f == "USTAR" {
			src = simple
		}
		run(src, "python3", "-c", "import sys, tarfile\nwith tarfile.open(sys.argv[1], 'w:gz', format=getattr(tarfile, sys.argv[2]+'_FORMAT')) as tf: tf.add('.')", out("python-"+f), f)
		made = append(made, "python-"+f)
	}
	run(full, "git", "init", "-q")
	run(full, "git", "add", "-A")
	run(full, "git", "commit", "-qm", "site")
	run(full, "git", "archive", "--format=tar.gz", "-o", out("git-archive"), "HEAD")
	made = append(made, "git-archive")

	// What the tools write and unpackers read differently: refused.
	refused := map[string]error{}
	sparse := filepath.Join(work, "sparse")
	must(t, os.MkdirAll(sparse, 0o755))
	must(t, os.WriteFile(filepath.Join(sparse, "index.html"), []byte(indexPage), 0o644))
	must(t, os.WriteFile(filepath.Join(sparse, "holes.bin"), nil, 0o644))
	must(t, os.Truncate(filepath.Join(sparse, "holes.bin"), 1<<20)) // a file of holes only
	for _, f := range []string{"gnu", "posix"} {
		run(sparse, "tar", "--sparse", "--format="+f, "-czf", out("gnu-tar-sparse-"+f), ".")
		refused["gnu-tar-sparse-"+f] = archive.ErrAmbiguous
	}
	run(simple, "tar", "--format=v7", "-czf", out("gnu-tar-v7"), ".")
	refused["gnu-tar-v7"] = archive.ErrAmbiguous

	var cands []candidate
	for m, kind := range refused {
		data, err := os.ReadFile(out(m))
		if err != nil {
			t.Fatal(err)
		}
		cands = append(cands, candidate{name: "tool/" + m, data: data, refuse: kind})
	}
	for _, m := range made {
		data, err := os.ReadFile(out(m))
		if err != nil {
			t.Fatal(err)
		}
		cands = append(cands, candidate{name: "tool/" + m, data: data, must: true})
	}
	var generated bytes.Buffer
	if err := (sitegen.Archive{Size: 3<<20 + 100, Seed: 1}).Write(&generated); err != nil {
		t.Fatal(err)
	}
	return append(cands, candidate{name: "tool/sitegen", data: generated.Bytes(), must: true})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// randomArchive builds an archive from names, links and encodings chosen to
// collide: the same names through pax records, GNU long names and ustar
// prefixes, links to links, through links and out of the root.
func randomArchive(rng *rand.Rand) []byte {
	// Mostly names and targets that can be accepted, so that many archives
	// reach the unpackers; some that cannot.
	names := []string{"index.html", "./index.html", "a", "a/", "a/b.html", "a/c", "l", "l/x", "a/l", "b", "b/", "x//y",
		"é.html", "a/./d.html", "c/d/e.html", "c/", "a/l/f.html"}
	badNames := []string{"..", "../x", "a/../b", "/abs", "a/b.html/", "l/", "a/."}
	targets := []string{"index.html", "a", "a/b.html", "l", "l/x", "a/..", ".", "a/l", "missing", "./a/c", "l/..", "c/d",
		"../index.html", "../a", "c/d/e.html", "../../index.html"}
	badTargets := []string{"..", "../x", "../outside", "b/../../x", escapeMarker, "a/b.html/", "../../../x"}
	choose := func(good, bad []string) string {
		if rng.IntN(5) == 0 {
			return bad[rng.IntN(len(bad))]
		}
		return good[rng.IntN(len(good))]
	}
	pickName := func() string { return choose(names, badNames) }
	pickTarget := func() string { return choose(targets, badTargets) }
	var hs []raw
	if rng.IntN(8) == 0 {
		hs = append(hs, pax('g', "pax_global_header", "comment", "abc"))
	}
	if rng.IntN(4) != 0 {
		hs = append(hs, rindex)
	}
	for i := range 1 + rng.IntN(6) {
		name := pickName()
		var h raw
		switch rng.IntN(5) {
		case 0, 1:
			h = rfile(name, strings.Repeat(string(rune('a'+rng.IntN(26))), rng.IntN(700)))
		case 2:
			h = rdir(name)
		case 3:
			h = rsym(name, pickTarget())
		default:
			h = rhard(name, choose(names, targets))
		}
		if h.typ != '5' && rng.IntN(4) != 0 {
			// Mostly a name that suits a file.
			h.name = strings.TrimRight(h.name, "/")
			name = h.name
		}
		decoy := fmt.Sprintf("decoy-%d", i)
		var records []string // of one pax header: unpackers disagree on two
		var long []raw
		switch rng.IntN(6) {
		case 1:
			records = append(records, "path", name)
			h.name = decoy
		case 2:
			long = append(long, gnuLong('L', name))
			h.name = decoy
		case 3:
			other := name
			if rng.IntN(3) == 0 {
				other = pickName()
			}
			long = append(long, gnuLong('L', name))
			records = append(records, "path", other)
			h.name = decoy
		case 4:
			if i := strings.LastIndexByte(name, '/'); i > 0 && i < len(name)-1 {
				h.prefix, h.name = name[:i], name[i+1:]
			}
		}
		if h.link != "" {
			switch rng.IntN(4) {
			case 1:
				records = append(records, "linkpath", h.link)
				h.link = "decoy"
			case 2:
				long = append(long, gnuLong('K', h.link))
				h.link = "decoy"
			}
		}
		switch rng.IntN(10) {
		case 0:
			h.gnu = true // with a prefix, where GNU keeps times
		case 1:
			if h.typ == '0' {
				h.typ = 0 // the old regular type
			}
		case 2:
			size := len(h.data)
			if rng.IntN(2) == 0 {
				size++
			}
			records = append(records, "size", strconv.Itoa(size))
		case 3:
			hs = append(hs, pax('g', "pax_global_header", "comment", "late"))
		}
		if len(records) > 0 {
			hs = append(hs, pax('x', "PaxHeaders/"+decoy, records...))
		}
		hs = append(append(hs, long...), h)
	}
	out := rawTar(hs...)
	switch rng.IntN(8) {
	case 0:
		out = append(out, make([]byte, 8192)...)
	case 1:
		out = out[:len(out)-1024] // no end-of-archive marker
	case 2:
		out = append(out, rsym("late", pickTarget()).bytes()...)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(out)
	_ = zw.Close()
	return buf.Bytes()
}
