package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish"
)

// siteOwnerOnDisk is the owner site.json records for the site at dir.
func siteOwnerOnDisk(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".docsadmin", "site.json"))
	if err != nil {
		return "", err
	}
	var m publish.Marker
	err = json.Unmarshal(data, &m)
	return m.Owner, err
}

// servedBy checks that dir serves a site through the provider's link,
// recorded for owner, and that beside it only notes.txt, the user's, is
// left, untouched.
func servedBy(dir, owner string) error {
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		return fmt.Errorf("the site is not served: %v", err)
	}
	if got, err := siteOwnerOnDisk(dir); err != nil || got != owner {
		return fmt.Errorf("site.json names the owner %q (%v), want %q", got, err, owner)
	}
	if err := onlySiteAndNotes(dir); err != nil {
		return err
	}
	if body, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "notes.txt")); err != nil || string(body) != "mine" {
		return fmt.Errorf("the user's file was touched: %q, %v", body, err)
	}
	return nil
}

// onlySiteAndNotes is onlySite with the user's notes.txt beside the site.
func onlySiteAndNotes(dir string) error {
	entries, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if n := e.Name(); n != filepath.Base(dir) && n != "."+filepath.Base(dir)+".docsadmin" && n != "notes.txt" {
			return fmt.Errorf("%s was left beside %s", n, filepath.Base(dir))
		}
	}
	return nil
}

// killedFirstPublication leaves at dir what a run killed after Stage, before
// its first switch, leaves: a store with the dead run's owner, a half tree
// in its staging area and temporary files, no lock held, and a store being
// made beside it.
func killedFirstPublication(t *testing.T, dir string) {
	t.Helper()
	parent, store := filepath.Dir(dir), filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".docsadmin")
	marker, _ := json.Marshal(publish.Marker{Directory: dir, Owner: "site-deadbeefdeadbeef"})
	for name, body := range map[string]string{
		filepath.Join(store, "site.json"):                                              string(marker),
		filepath.Join(store, "lock"):                                                   "",
		filepath.Join(store, "staging", "tree", "index.html"):                          "half",
		filepath.Join(store, localfile.TempName("site.json")):                          "{",
		filepath.Join(parent, ".docsadmin-new-12345", "site.json"):                     string(marker),
		filepath.Join(parent, ".docsadmin-new-12345", "lock"):                          "",
		filepath.Join(parent, ".docsadmin-new-12345", localfile.TempName("site.json")): "{",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("nowhere", filepath.Join(store, ".link-0123456789abcdef")); err != nil {
		t.Fatal(err)
	}
}

// A first publication whose run is still staging (its lock held) is
// refused as one being published now; once that run is gone, killed after
// Stage, the next apply takes its store over, removes what it left, and
// publishes.
func TestStaticSite_takesOverAKilledFirstPublication(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t, mockapi.Config{})
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	if err := os.WriteFile(filepath.Join(parent, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	site, err := publish.Locate(dir)
	if err != nil {
		t.Fatal(err)
	}
	running, err := site.Stage("site-running")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = running.Abandon() }()
	var id string
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config:      siteConfig(mock, dir, ""),
				ExpectError: regexp.MustCompile(`(?s)is\s+published\s+by\s+another\s+docsadmin_static_site\s+\(site-running,\s+publishing\s+its\s+first\s+site\s+now\)`),
			},
			{
				PreConfig: func() {
					if err := running.Abandon(); err != nil {
						t.Fatal(err)
					}
					killedFirstPublication(t, dir)
				},
				Config: siteConfig(mock, dir, ""),
				Check: resource.ComposeTestCheckFunc(captureAttr(siteAddress, "id", &id), func(*terraform.State) error {
					if err := servedBy(dir, id); err != nil {
						return err
					}
					entries, err := os.ReadDir(site.Store)
					if err != nil {
						return err
					}
					var left []string
					for _, e := range entries {
						if n := e.Name(); strings.HasPrefix(n, ".") || n == "staging" {
							left = append(left, n)
						}
					}
					if len(left) > 0 {
						return fmt.Errorf("the killed run's %v are still in the store", left)
					}
					return nil
				}),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if _, err := os.Lstat(site.Store); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("destroy left the store: %v", err)
			}
			return nil
		},
	})
}
