package siteclaims

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish"
)

func locate(t *testing.T, dir string) publish.Site {
	t.Helper()
	s, err := publish.Locate(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The requests of one run claim at once: of sites that collide (one
// directory, or one inside another), exactly one is granted, at plan
// (Overlap) as at apply (Claim), and every site of its own directory is
// granted; the race detector (make test) watches the shared list.
func TestClaimsGrantOneOfCollidingSitesClaimedAtOnce(t *testing.T) {
	t.Parallel()
	for _, phase := range []string{"plan", "apply"} {
		t.Run(phase, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			shared := locate(t, filepath.Join(root, "shared"))
			nested := locate(t, filepath.Join(root, "shared", "inner"))
			var c Claims
			const n = 16
			var wg sync.WaitGroup
			granted := make([]string, n)
			refused := make([]string, n)
			own := make([]string, n)
			for i := range n {
				wg.Go(func() {
					site := shared
					if i%2 == 1 {
						site = nested
					}
					problem := c.Overlap(site, "se_1")
					if phase == "apply" {
						problem = c.Claim(site, fmt.Sprintf("site-%d", i), "se_1")
					}
					if problem == "" {
						granted[i] = site.Dir
					} else {
						refused[i] = problem
					}
				})
				wg.Go(func() {
					site := locate(t, filepath.Join(root, fmt.Sprintf("own-%d", i)))
					own[i] = c.Overlap(site, "se_2")
					if phase == "apply" {
						own[i] = c.Claim(site, fmt.Sprintf("own-%d", i), "se_2")
					}
					c.Remember(locate(t, filepath.Join(root, fmt.Sprintf("kept-%d", i))), fmt.Sprintf("kept-%d", i), "se_3")
					_ = c.InState(fmt.Sprintf("kept-%d", i))
				})
			}
			wg.Wait()
			count := 0
			for i, dir := range granted {
				if dir != "" {
					count++
				} else if !strings.Contains(refused[i], "another docsadmin_static_site") {
					t.Errorf("claim %d refused in other words: %q", i, refused[i])
				}
			}
			if count != 1 {
				t.Errorf("%d of %d colliding claims granted, want exactly 1: %q", count, n, granted)
			}
			for i, problem := range own {
				if problem != "" {
					t.Errorf("a site of its own directory was refused: %s", problem)
				}
				if !c.InState(fmt.Sprintf("kept-%d", i)) {
					t.Errorf("kept-%d, remembered from state, is not in state", i)
				}
				if c.InState(fmt.Sprintf("own-%d", i)) {
					t.Errorf("own-%d, a create of this run, is said to be in state", i)
				}
			}
		})
	}
}

// A site in state at a planned site's directory is not a collision at
// plan (it may be the one the plan replaces), and an owner's own claims
// never collide; another owner's do, at apply.
func TestClaimsTellStateFromThisRun(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "site")
	var c Claims
	c.Remember(locate(t, dir), "site-a", "se_1")
	c.Remember(locate(t, dir), "site-a", "se_1")
	if problem := c.Overlap(locate(t, dir), "se_2"); problem != "" {
		t.Errorf("a planned replacement at the directory of a site in state: %s", problem)
	}
	if problem := c.Claim(locate(t, dir), "site-a", "se_2"); problem != "" {
		t.Errorf("the owner's own claim: %s", problem)
	}
	problem := c.Claim(locate(t, dir), "site-b", "se_3")
	if !strings.Contains(problem, "the same directory as another docsadmin_static_site") || !strings.Contains(problem, "export job se_1") {
		t.Errorf("another owner's claim of the same directory: %q", problem)
	}
}

// The configuration is the working directory, with the workspace when it
// is not the default one, from TF_WORKSPACE or the data directory.
func TestConfigurationNamesTheWorkspace(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	t.Setenv("TF_DATA_DIR", data)
	t.Setenv("TF_WORKSPACE", "")
	if got := Configuration(); got != wd {
		t.Errorf("no workspace: %q, want %q", got, wd)
	}
	if err := os.WriteFile(filepath.Join(data, "environment"), []byte("staging\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := Configuration(), wd+" (workspace staging)"; got != want {
		t.Errorf("from the data directory: %q, want %q", got, want)
	}
	t.Setenv("TF_WORKSPACE", "default")
	if got := Configuration(); got != wd {
		t.Errorf("TF_WORKSPACE=default: %q, want %q", got, wd)
	}
}
