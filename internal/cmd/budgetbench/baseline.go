package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// buildRevision builds the provider as it was at the git revision rev and
// returns a runner that installs that build, all below home. The source
// comes from the project's own history (git archive), so the baseline is
// the code users ran, not a setting of today's code.
func buildRevision(ctx context.Context, terraform, home, rev string) (*tfrunner.Runner, error) {
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		return nil, err
	}
	if _, err := tfrunner.ResolveRevision(ctx, root, rev); err != nil {
		return nil, fmt.Errorf("%w (or pass -baseline)", err)
	}
	src := filepath.Join(home, "src")
	if err := tfrunner.ExportRevision(ctx, root, rev, src); err != nil {
		return nil, err
	}
	bin := filepath.Join(home, "bin")
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "terraform-provider-docsadmin"), ".")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build of %s: %w\n%s", rev, err, out)
	}
	r, err := tfrunner.New(terraform, home)
	if err != nil {
		return nil, err
	}
	return r, r.Install(tfrunner.DevOverrides(bin))
}
