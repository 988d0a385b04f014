// Package siteclaims holds the served paths that the static sites of one
// provider instance (one plan or one apply) publish at, shared by the
// requests of that run, so that two sites whose paths are the same or
// nested are refused before either writes; and the name of the
// configuration a run belongs to, which each site records. Its own package
// because it is the provider's state shared between requests, which make
// test runs under the race detector.
package siteclaims

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish"
)

// Claims are the sites of one run. The zero value is empty and ready.
type Claims struct {
	mu     sync.Mutex
	claims []claim
}

type claim struct {
	site  publish.Site
	owner string // "" while planned
	jobID string
	fresh bool // a create of this run, not a site already in state
}

// Overlap says how a planned new site collides with the sites this run has
// seen, or "", and records it. A site in state at the same path is not a
// collision at plan: it may be the one this replaces (a tainted site, or
// -replace); the apply tells them apart by the owner recorded on disk.
func (c *Claims) Overlap(site publish.Site, jobID string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, other := range c.claims {
		how := publish.Overlap(site, other.site)
		if how == "" || (!other.fresh && how == publish.SameDirectory) {
			continue
		}
		return overlapProblem(site, how, other)
	}
	c.claims = append(c.claims, claim{site: site, jobID: jobID, fresh: true})
	return ""
}

func overlapProblem(site publish.Site, how string, other claim) string {
	job := ""
	if other.jobID != "" {
		job = ", the site of export job " + other.jobID
	}
	return fmt.Sprintf("%s is %s another docsadmin_static_site (%s%s). Give each site a directory of its own, outside the others'.",
		site.Dir, how, other.site.Dir, job)
}

// Claim records a site that this run publishes, refusing one that collides
// with another owner's.
func (c *Claims) Claim(site publish.Site, owner, jobID string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, other := range c.claims {
		if other.owner == owner || other.owner == "" {
			continue
		}
		if how := publish.Overlap(site, other.site); how != "" {
			return overlapProblem(site, how, other)
		}
	}
	c.claims = append(c.claims, claim{site: site, owner: owner, jobID: jobID, fresh: true})
	return ""
}

// Remember records a site in state, as its refresh or its plan finds it.
func (c *Claims) Remember(site publish.Site, owner, jobID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, other := range c.claims {
		if !other.fresh && other.owner == owner && other.site.Dir == site.Dir {
			return
		}
	}
	c.claims = append(c.claims, claim{site: site, owner: owner, jobID: jobID})
}

// InState reports whether owner is a site this run read or planned from
// its state: what makes a site this configuration's, since Terraform
// tells a provider neither which state it runs with nor where it is kept.
func (c *Claims) InState(owner string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, other := range c.claims {
		if !other.fresh && other.owner == owner {
			return true
		}
	}
	return false
}

// Configuration names the configuration this run belongs to, recorded
// with each site it publishes so that a refusal can say where another
// site came from: Terraform runs a provider in the root module's
// directory, and the workspace is in TF_WORKSPACE or in the data
// directory's environment file. "" when the directory cannot be read. Two
// states of one working directory share it: whether a site is this run's
// is decided by its state (InState).
func Configuration() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	workspace := os.Getenv("TF_WORKSPACE")
	if workspace == "" {
		data := os.Getenv("TF_DATA_DIR")
		if data == "" {
			data = ".terraform"
		}
		if f, err := localfile.OpenRegular(filepath.Join(data, "environment")); err == nil {
			name, _ := io.ReadAll(io.LimitReader(f, 256))
			f.Close()
			workspace = strings.TrimSpace(string(name))
		}
	}
	if workspace == "" || workspace == "default" {
		return wd
	}
	return wd + " (workspace " + workspace + ")"
}
