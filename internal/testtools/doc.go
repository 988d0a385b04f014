// Package testtools holds the one rule for a test that runs a program from
// outside Go, such as bsdtar, busybox, nginx, Node.js, jq, the AWS CLI,
// versitygw or the pinned Terraform: when Env is set, as make test and CI set
// it, a missing program fails the test, so that no run passes by skipping
// what it was meant to check; when Env is unset (a plain go test), the test
// skips, naming the program and how to install it. A test must never look a
// program up any other way (LookPath, Missing).
package testtools
