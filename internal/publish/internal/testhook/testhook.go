// Package testhook holds the moment of a publication at which a test may
// act: nil in every run but a test's, which sets it through publishtest.
// Being internal to publish, it is no part of any package's API.
package testhook

import "sync/atomic"

// BeforeLinkSwitch, when set, runs with the served path after the new
// tree is durable and before the link at that path is made or exchanged.
var BeforeLinkSwitch atomic.Pointer[func(dir string)]
