package publish

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish/confined"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish/internal/testhook"
)

// Switch moves the complete tree (from Stage) into the releases, writes
// its records beside it (name suffix to content, such as ".json"), and
// points Dir at it in one step. The release that was current stays as the
// previous one; every older release is removed. It returns the new
// release's name, and then releases the lock: the Staged is spent. When it
// returns no name nothing was switched, and Abandon undoes the Stage.
func (st *Staged) Switch(jobID string, records map[string][]byte) (name string, err error) {
	if st.lock == nil {
		return "", errors.New("the staged tree was already switched in or abandoned")
	}
	defer func() {
		if name != "" {
			st.release()
		}
	}()
	s, o := st.Site, st.o
	found, err := o.inspect()
	if err != nil {
		return "", err
	}
	if found.Foreign != "" {
		return "", &ForeignError{Site: s, Found: found.Foreign}
	}
	if found.Marker == nil {
		return "", fmt.Errorf("%s disappeared while the site was written", s.Store)
	}
	if found.Marker.Owner != st.Owner {
		return "", s.conflict(*found.Marker, found)
	}
	release := newRelease(time.Now())
	if err := st.moveIn(release, records); err != nil {
		st.discard(release)
		return "", err
	}
	if hook := testhook.BeforeLinkSwitch.Load(); hook != nil {
		(*hook)(s.Dir)
	}
	if err := o.switchLink(found, release); err != nil {
		st.discard(release)
		return "", err
	}
	localfile.SyncRoot(o.parent)
	m := *found.Marker
	if found.Current != "" && found.Current != release {
		m.Previous = found.Current
	}
	m.Directory, m.Current, m.JobID, m.Published = s.Dir, release, jobID, time.Now().UTC()
	if st.Configuration != "" {
		m.Configuration = st.Configuration
	}
	if err := writeMarker(o.store, m); err != nil {
		return release, err
	}
	_, _ = confined.Remove(o.store, stagingDir, confined.Dir)
	return release, st.prune(m.Current, m.Previous)
}

// moveIn makes the staged tree durable and moves it into the releases as
// release, with its records.
func (st *Staged) moveIn(release string, records map[string][]byte) error {
	// Durable before it is published (localfile's policy).
	if err := localfile.SyncTree(st.tree); err != nil {
		return fmt.Errorf("syncing the new tree to disk: %w", err)
	}
	if err := localfile.Rename(st.staging, stagedTree, st.releases, release); err != nil {
		return err
	}
	return writeRecords(st.o.store, release, records)
}

// discard removes a release that was never switched in, and its records.
func (st *Staged) discard(release string) {
	_, _ = confined.Remove(st.releases, release, confined.Dir)
	pruneRecords(st.o.store, func(name string) bool { return name != release })
}

// switchLink points Dir at release. Where nothing was, the link is made
// there directly, which fails on anything that appeared meanwhile. Where
// the provider's link was, the new one is exchanged with it in one step
// and what came out is checked to be the provider's link: anything else is
// put back. Without an exchange (some systems and file systems), Dir is
// checked again just before a rename over it.
func (o *opened) switchLink(found Inspection, release string) error {
	s := o.site
	target := s.linkTarget(release)
	appeared := func() error {
		f, err := o.inspect()
		if err != nil {
			return err
		}
		what := f.Foreign
		if what == "" {
			what = "an entry that the provider did not check"
		}
		return &ForeignError{Site: s, Found: what, Appeared: true}
	}
	if !found.Own {
		err := o.parent.Symlink(target, s.base())
		if errors.Is(err, fs.ErrExist) {
			return appeared()
		}
		if err != nil {
			return fmt.Errorf("creating the symbolic link that serves the site: %w", err)
		}
		return nil
	}
	tmp := linkTmpInfix + rand.Text()
	if err := o.store.Symlink(target, tmp); err != nil {
		return fmt.Errorf("creating the symbolic link that serves the site: %w", err)
	}
	err := localfile.Exchange(o.store, tmp, o.parent, s.base())
	switch {
	case err == nil:
		if o.ownLinkAt(o.store, tmp) {
			_ = o.store.Remove(tmp)
			return nil
		}
		// Not the provider's: put it back, and take the new link out.
		if err := localfile.Exchange(o.store, tmp, o.parent, s.base()); err != nil {
			return fmt.Errorf("%s appeared at %s during the switch and could not be put back from %s: %w; move it back by hand",
				"an entry the provider did not make", s.Dir, filepath.Join(s.Store, tmp), err)
		}
		_ = o.store.Remove(tmp)
		return appeared()
	case errors.Is(err, errors.ErrUnsupported):
		if now, err := o.inspect(); err != nil || !now.Own {
			_ = o.store.Remove(tmp)
			if err != nil {
				return err
			}
			return appeared()
		}
		if err := localfile.Rename(o.store, tmp, o.parent, s.base()); err != nil {
			_ = o.store.Remove(tmp)
			return fmt.Errorf("switching %s to the new tree: %w", s.Dir, err)
		}
		return nil
	default:
		_ = o.store.Remove(tmp)
		return fmt.Errorf("switching %s to the new tree: %w", s.Dir, err)
	}
}

// prune removes every release but keep, and the records of those it
// removes: only entries of the provider's release names.
func (st *Staged) prune(keep ...string) error {
	entries, err := confined.ReadDir(st.releases)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if releaseName.MatchString(e.Name()) && !contains(keep, e.Name()) {
			if _, err := confined.Remove(st.releases, e.Name(), confined.Dir); err != nil {
				errs = append(errs, err)
			}
		}
	}
	pruneRecords(st.o.store, func(name string) bool { return contains(keep, name) })
	return errors.Join(errs...)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v != "" && v == s {
			return true
		}
	}
	return false
}
