package archive_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// readTree returns the regular files under dir by slash path, and fails on
// anything that is neither a file nor a directory, or on a mode other than
// 0644 for files and 0755 for directories.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir():
			if info.Mode().Perm() != 0o755 {
				t.Errorf("directory %s has mode %o, want 755", rel, info.Mode().Perm())
			}
		case info.Mode().IsRegular():
			if info.Mode().Perm() != 0o644 {
				t.Errorf("file %s has mode %o, want 644", rel, info.Mode().Perm())
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = string(data)
		default:
			t.Errorf("%s is neither a file nor a directory: %s", rel, info.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// filesOf reads the regular files of a gzip'd tar with archive/tar, apart
// from the code under test: hard links as their targets' content.
func filesOf(t *testing.T, data []byte) map[string]string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(filepath.ToSlash(filepath.Clean(h.Name)), "./")
		switch h.Typeflag {
		case tar.TypeReg:
			body, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			out[name] = string(body)
		case tar.TypeLink:
			out[name] = out[strings.TrimPrefix(filepath.Clean(h.Linkname), "./")]
		}
	}
}

// into makes the empty directory dest and opens it for unpacking.
func into(t *testing.T, dest string) *os.Root {
	t.Helper()
	if err := os.MkdirAll(dest, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

// onlyEntries fails unless dir holds exactly the names want.
func onlyEntries(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s holds %v, want %v", dir, got, want)
	}
}

// oddSite is a site whose entries carry odd modes and names: the unpacked
// tree must not care.
func oddSite(t *testing.T) []byte {
	private := file("./assets/private.js", "let x = 1;\n")
	private.hdr.Mode = 0o600
	exec := file("guides/run.html", "<h1>run</h1>")
	exec.hdr.Mode = 0o4777
	locked := dir("locked/")
	locked.hdr.Mode = 0o500
	return tgz(t,
		dir("./"),
		file("./index.html", indexPage),
		private,
		exec,
		locked,
		file("locked/page.html", "<h1>locked</h1>"),
		dir("guides/"), // named again after a file inside it
		file("deep/a/b/c/d.html", strings.Repeat("d", 70_000)),
		hardlink("copy/of-index.html", "./index.html"),
		file("empty.txt", ""),
	)
}

func TestUnpackWritesTheArchiveByteForByte(t *testing.T) {
	data := oddSite(t)
	dest := filepath.Join(t.TempDir(), "out", "site")
	var told []archive.File
	sum, err := archive.Limits{}.Unpack(context.Background(), bytes.NewReader(data), into(t, dest), archive.UnpackOptions{
		File: func(f archive.File) error { told = append(told, f); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := filesOf(t, data)
	got := readTree(t, dest)
	if !maps.Equal(got, want) {
		t.Errorf("unpacked tree:\n%v\nwant:\n%v", got, want)
	}
	if sum.SHA256 != sha(data) || sum.Files != len(want) {
		t.Errorf("summary %+v, want SHA-256 %s and %d files", sum, sha(data), len(want))
	}
	if sum.MD5 != fmt.Sprintf("%x", md5.Sum(data)) {
		t.Errorf("summary MD5 %s, want %x", sum.MD5, md5.Sum(data))
	}
	if len(told) != len(want) {
		t.Errorf("told %d files, want %d", len(told), len(want))
	}
	for _, f := range told {
		body, ok := want[f.Name]
		switch {
		case !ok:
			t.Errorf("told of %q, which the archive does not hold", f.Name)
		case f.Size != int64(len(body)) || f.SHA256 != sha256.Sum256([]byte(body)) || f.MD5 != md5.Sum([]byte(body)):
			t.Errorf("%s: told size %d and digests %x %x, want %d", f.Name, f.Size, f.SHA256, f.MD5, len(body))
		}
	}
	onlyEntries(t, filepath.Dir(dest), "site")

	// Files tells the same without writing anything.
	var digests []archive.File
	if _, err := (archive.Limits{}).Files(context.Background(), bytes.NewReader(data), archive.UnpackOptions{File: func(f archive.File) error {
		digests = append(digests, f)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(digests) != fmt.Sprint(told) {
		t.Errorf("Files told\n%v\nUnpack told\n%v", digests, told)
	}
}

// An archive refused at its very end, by Accept or by the verifier, leaves
// the directory it was given empty, and nothing beside it.
func TestUnpackRefusedAtTheEndLeavesItEmpty(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "site")
	root := into(t, dest)
	refuse := errors.New("not this one")
	_, err := archive.Limits{}.Unpack(context.Background(), bytes.NewReader(tgz(t, file("index.html", "one"))), root, archive.UnpackOptions{
		Accept: func(archive.Summary) error { return refuse },
	})
	if !errors.Is(err, refuse) {
		t.Fatalf("Unpack = %v, want Accept's error", err)
	}
	onlyEntries(t, dest)
	noIndex := tgz(t, file("a.html", "a"), file("guides/b.html", "b"))
	if _, err := (archive.Limits{}).Unpack(context.Background(), bytes.NewReader(noIndex), root, archive.UnpackOptions{}); !errors.Is(err, archive.ErrNoIndex) {
		t.Fatalf("Unpack = %v, want ErrNoIndex", err)
	}
	onlyEntries(t, dest)
	onlyEntries(t, parent, "site")
}

// TestUnpackRefusalsLeaveNothing: every archive the verifier refuses, and a
// site with a symbolic link, leaves the directory empty, and nothing
// outside.
func TestUnpackRefusalsLeaveNothing(t *testing.T) {
	cases := rejections(t)
	cases = append(cases,
		rejection{"symbolic link in a site", tgz(t, file("index.html", indexPage), file("assets/a.css", "a"), symlink("css", "assets")),
			archive.ErrSpecialFile, "css", "static hosts"},
		rejection{"symbolic link before the index", tgz(t, symlink("latest", "."), file("index.html", indexPage)),
			archive.ErrSpecialFile, "latest", "tar -h"},
	)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			dest := filepath.Join(parent, "sub", "site")
			sum, err := archive.Limits{}.Unpack(context.Background(), bytes.NewReader(tc.data), into(t, dest), archive.UnpackOptions{})
			if tc.kind == archive.ErrUnsafeLink && errors.Is(err, archive.ErrSpecialFile) && strings.Contains(err.Error(), "a symbolic link") {
				// Links that the verifier resolves only at the end are refused
				// earlier, as links.
				var aerr *archive.Error
				errors.As(err, &aerr)
				tc.kind, tc.entry, tc.words = archive.ErrSpecialFile, aerr.Entry, "static hosts"
			}
			checkRejection(t, tc, sum, err)
			onlyEntries(t, dest)
			onlyEntries(t, filepath.Dir(dest), "site")
			onlyEntries(t, parent, "sub")
			if _, err := (archive.Limits{}).Files(context.Background(), bytes.NewReader(tc.data), archive.UnpackOptions{}); !errors.Is(err, tc.kind) && !errors.Is(err, archive.ErrSpecialFile) {
				t.Errorf("Files = %v, want %v", err, tc.kind)
			}
		})
	}
}

// TestUnpackCannotEscapeARace: a symbolic link planted in the tree while
// it is written (by another process, say) cannot lead a later entry
// outside it: writes go through an os.Root.
func TestUnpackCannotEscapeARace(t *testing.T) {
	parent := t.TempDir()
	outside := t.TempDir()
	dest := filepath.Join(parent, "site")
	data := tgz(t, file("index.html", indexPage), file("a.html", "a"), file("assets/x.css", "x"))
	planted := false
	_, err := archive.Limits{}.Unpack(context.Background(), bytes.NewReader(data), into(t, dest), archive.UnpackOptions{
		File: func(f archive.File) error {
			if f.Name != "a.html" {
				return nil
			}
			planted = true
			return os.Symlink(outside, filepath.Join(dest, "assets"))
		},
	})
	if !planted {
		t.Fatalf("the link was not planted: %v", err)
	}
	if err == nil {
		t.Fatal("Unpack followed a link planted in its tree")
	}
	onlyEntries(t, outside)
	onlyEntries(t, dest)
}

// cancelAfter cancels a context once n bytes were read through it.
type cancelAfter struct {
	r      io.Reader
	n      int64
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.n -= int64(n); c.n <= 0 {
		c.cancel()
	}
	return n, err
}

func TestUnpackStopsWhenCancelled(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "site")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := sitegen.Archive{Size: 256 << 20, Seed: 1}.Open()
	defer src.Close()
	start := time.Now()
	_, err := archive.Limits{}.Unpack(ctx, &cancelAfter{r: src, n: 8 << 20, cancel: cancel}, into(t, dest), archive.UnpackOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Unpack = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Unpack took %s to stop", d)
	}
	onlyEntries(t, dest)
}

// TestUnpackHardLinkCopy: a hard link becomes a copy of its target, and a
// cancelled context stops the unpacking.
func TestUnpackHardLinkCopy(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	data := tgz(t, file("index.html", indexPage), file("big.bin", big), hardlink("a/big.bin", "big.bin"), hardlink("b/big.bin", "./big.bin"))
	dest := filepath.Join(t.TempDir(), "site")
	if _, err := (archive.Limits{}).Unpack(context.Background(), bytes.NewReader(data), into(t, dest), archive.UnpackOptions{}); err != nil {
		t.Fatal(err)
	}
	got := readTree(t, dest)
	if got["a/big.bin"] != big || got["b/big.bin"] != big {
		t.Error("a hard link was not unpacked as a copy of its target")
	}
	// Copies, not links: changing one leaves the others.
	if err := os.WriteFile(filepath.Join(dest, "a", "big.bin"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dest, "big.bin")); string(data) != big {
		t.Error("the hard link's copy shares its target's content")
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cancelled := filepath.Join(t.TempDir(), "site")
	if _, err := (archive.Limits{}).Unpack(ctx, bytes.NewReader(data), into(t, cancelled), archive.UnpackOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Unpack with a cancelled context = %v", err)
	}
	onlyEntries(t, cancelled)
}

// A directory that is not empty is refused, and what it holds stays: the
// unpacking fills an empty directory, and never replaces one.
func TestUnpackRefusesADirectoryThatIsNotEmpty(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "site")
	root := into(t, dest)
	if err := os.WriteFile(filepath.Join(dest, "mine.html"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (archive.Limits{}).Unpack(context.Background(), bytes.NewReader(site(t)), root, archive.UnpackOptions{}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("Unpack into a directory that is not empty = %v", err)
	}
	if got := readTree(t, dest); !maps.Equal(got, map[string]string{"mine.html": "mine"}) {
		t.Errorf("the directory now holds %v", got)
	}
}

// TestGeneratedPagesAreASite: the bench's site of many small pages writes
// an archive the verifier accepts, with the files it promises.
func TestGeneratedPagesAreASite(t *testing.T) {
	pages := sitegen.Archive{Site: sitegen.Site{PageCount: 250}}
	var buf bytes.Buffer
	if err := pages.Write(&buf); err != nil {
		t.Fatal(err)
	}
	var names []string
	sum, err := archive.Limits{}.Files(context.Background(), bytes.NewReader(buf.Bytes()), archive.UnpackOptions{File: func(f archive.File) error {
		names = append(names, f.Name)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	// 250 pages and their RSC payloads, the sitemap, robots.txt, the search
	// index and the assets.
	if want := 2*250 + 3 + len(sitegen.SiteAssets().Files); sum.Files != want || len(names) != want || sitegen.FileCount(250) != want {
		t.Errorf("%d files told, Summary.Files = %d, sitegen.FileCount = %d, want %d", len(names), sum.Files, sitegen.FileCount(250), want)
	}
	if names[0] != "index.html" || names[1] != "guides/index.html" || names[250] != "index.txt" || names[249] != "topics/topic-250.html" {
		t.Errorf("the first files are %v, the 250th and 251st %v", names[:2], names[249:251])
	}
	var again bytes.Buffer
	if err := pages.Write(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("the same site gave other bytes")
	}
}

// Every directory entry is told to Dir before it is made, by its clean
// path, the root never; an error there stops the unpacking before the
// directory exists and leaves nothing behind. Files tells the same.
func TestUnpackTellsDirectories(t *testing.T) {
	data := tgz(t,
		dir("./"),
		file("./index.html", indexPage),
		dir("./guides/"),
		file("guides/a.html", "a"),
		dir("empty/"),
		dir("deep/er/"), // its parent is implicit: not told
		dir("guides/."),
		dir(".git/"),
		dir(".git/hooks/"),
		dir("a\\b/"),
		file("z.html", "z"),
	)
	want := []string{"guides", "empty", "deep/er", "guides", ".git", ".git/hooks", "a\\b"}
	var told []string
	if _, err := (archive.Limits{}).Unpack(context.Background(), bytes.NewReader(data), into(t, filepath.Join(t.TempDir(), "site")), archive.UnpackOptions{
		Dir: func(name string) error { told = append(told, name); return nil },
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(told) != fmt.Sprint(want) {
		t.Errorf("Unpack told the directories %q, want %q", told, want)
	}
	told = nil
	if _, err := (archive.Limits{}).Files(context.Background(), bytes.NewReader(data), archive.UnpackOptions{
		Dir: func(name string) error { told = append(told, name); return nil },
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(told) != fmt.Sprint(want) {
		t.Errorf("Files told the directories %q, want %q", told, want)
	}

	for _, refused := range []string{".git", ".git/hooks", "a\\b"} {
		parent := t.TempDir()
		dest := filepath.Join(parent, "site")
		errRefused := errors.New("refused " + refused)
		var files []string
		written := false
		_, err := archive.Limits{}.Unpack(context.Background(), bytes.NewReader(data), into(t, dest), archive.UnpackOptions{
			File: func(f archive.File) error { files = append(files, f.Name); return nil },
			Dir: func(name string) error {
				if name != refused {
					return nil
				}
				if _, err := os.Lstat(filepath.Join(dest, filepath.FromSlash(name))); err == nil {
					written = true
				}
				return errRefused
			},
		})
		if !errors.Is(err, errRefused) {
			t.Errorf("%q: Unpack = %v, want the error of Dir", refused, err)
		}
		if written {
			t.Errorf("%q was made before Dir was told", refused)
		}
		if fmt.Sprint(files) != "[index.html guides/a.html]" {
			t.Errorf("%q: files told %v: the unpacking went on", refused, files)
		}
		onlyEntries(t, dest)
		onlyEntries(t, parent, "site")
		if _, err := (archive.Limits{}).Files(context.Background(), bytes.NewReader(data), archive.UnpackOptions{
			Dir: func(name string) error {
				if name == refused {
					return errRefused
				}
				return nil
			},
		}); !errors.Is(err, errRefused) {
			t.Errorf("%q: Files = %v, want the error of Dir", refused, err)
		}
	}

	// Accept is shown the Summary by Files too, and its error is Files'.
	errAccept := errors.New("not this one")
	if _, err := (archive.Limits{}).Files(context.Background(), bytes.NewReader(data), archive.UnpackOptions{
		Accept: func(sum archive.Summary) error {
			if sum.Files != 3 {
				t.Errorf("Accept shown %d files, want 3", sum.Files)
			}
			return errAccept
		},
	}); !errors.Is(err, errAccept) {
		t.Errorf("Files with Accept refusing = %v", err)
	}
}
