// Package publishtest lets the tests of packages that publish a site act
// at the one moment of a publication that they cannot reach from outside:
// after the new tree is durable, and before the served path is switched
// to it. Tests only; the provider never imports it.
package publishtest

import (
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish/internal/testhook"
)

// BeforeLinkSwitch has f run, until the end of the test, whenever a
// publication is about to switch the served path dir to its new tree. It
// runs for every publication of the process: f tells its own dir apart.
func BeforeLinkSwitch(t testing.TB, f func(dir string)) {
	t.Helper()
	if !testhook.BeforeLinkSwitch.CompareAndSwap(nil, &f) {
		t.Fatal("publishtest.BeforeLinkSwitch is already set by another test")
	}
	t.Cleanup(func() { testhook.BeforeLinkSwitch.Store(nil) })
}
