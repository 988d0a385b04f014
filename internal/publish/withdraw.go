package publish

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish/confined"
)

// Withdrawal is what Withdraw did.
type Withdrawal struct {
	// Removed says the store was this owner's and its entries went.
	Removed bool
	// Left names what stayed in the store because the provider did not
	// make it; the store then stays too.
	Left []string
}

// Withdraw removes what owner published at Dir from the store want
// identifies (zero: the store at its name): the link, when it is the
// provider's (checked after it is moved away, and put back otherwise), and
// the entries of the store of the provider's names and kinds, under the
// store's lock; stores being made for Dir that killed runs left beside it
// go too, and the provider's link alone when its store was removed by hand.
// Nothing is removed of a store that belongs to another owner or another
// user, nor of one that is not the store want identifies (an
// *OtherStoreError: moved, copied or replaced since), and a Dir that is not
// the provider's link is left in place. A store another run holds is
// refused with a *BusyError.
func (s Site) Withdraw(owner string, want StoreID) (Withdrawal, error) {
	o, err := s.open(false)
	if err != nil || o.parent == nil {
		return Withdrawal{}, err
	}
	defer o.close()
	removeNewStores(o.parent, s)
	found, err := o.inspect()
	if err == nil && found.Own && o.store == nil {
		// The store was removed by hand: the link serves nothing, and
		// goes, moved aside beside it and checked first.
		return Withdrawal{}, o.removeLink(o.parent)
	}
	if mine, err := s.withdraws(owner, want, found, err); !mine {
		return Withdrawal{}, err
	}
	lock, err := lockFile(o.store)
	if errors.Is(err, confined.ErrBusy) {
		return Withdrawal{}, &BusyError{Site: s}
	}
	if err != nil {
		return Withdrawal{}, err
	}
	defer lock.Close()
	found, err = o.inspect()
	if mine, err := s.withdraws(owner, want, found, err); !mine {
		return Withdrawal{}, err
	}
	if found.Current != "" {
		if err := o.removeLink(o.store); err != nil {
			return Withdrawal{}, err
		}
	}
	lock.BeforeRemoval()
	return Withdrawal{Removed: true, Left: o.removeStore()}, nil
}

// withdraws says whether Withdraw removes the store found: owner's, and
// the one want identifies when it is known. When it does not, the error
// says why, if there is one to say.
func (s Site) withdraws(owner string, want StoreID, found Inspection, err error) (bool, error) {
	switch {
	case err != nil:
		return false, err
	case found.Marker == nil || found.Marker.Owner != owner:
		return false, nil
	case !want.IsZero() && found.Store != want:
		return false, &OtherStoreError{Site: s, Want: want, Found: found.Store}
	}
	return true, nil
}

// removeLink moves the link at Dir into aside (the store, or the
// directory that holds Dir when the store is gone), checks it is the
// provider's, and removes it; anything else is put back.
func (o *opened) removeLink(aside *os.Root) error {
	s := o.site
	gone := linkGoneName + "-" + rand.Text()
	if err := localfile.RenameNoReplace(o.parent, s.base(), aside, gone); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("removing the link %s: %w", s.Dir, err)
	}
	if o.ownLinkAt(aside, gone) {
		return aside.Remove(gone)
	}
	if err := localfile.RenameNoReplace(aside, gone, o.parent, s.base()); err != nil {
		return fmt.Errorf("an entry the provider did not make replaced the link %s while it was being removed, and could not be "+
			"put back from %s: %w; move it back by hand", s.Dir, filepath.Join(aside.Name(), gone), err)
	}
	return nil
}
