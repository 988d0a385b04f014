// Package devprovider builds this provider and points Terraform or OpenTofu
// at the build through dev_overrides, for the demo, the benchmarks and the
// tests that run the real CLI. Nothing is fetched from a registry.
package devprovider

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Addresses are the provider's addresses for the source "docsadmin/docsadmin":
// Terraform implies one registry host, OpenTofu another.
var Addresses = []string{
	"registry.terraform.io/docsadmin/docsadmin",
	"registry.opentofu.org/docsadmin/docsadmin",
}

// Build compiles the provider of the module at root into dir, reporting
// version, and returns the binary's path.
func Build(ctx context.Context, root, dir, version string) (string, error) {
	bin := filepath.Join(dir, "terraform-provider-docsadmin")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-ldflags", "-X main.version="+version, "-o", bin, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build of the provider: %w\n%s", err, out)
	}
	return bin, nil
}

// CLIConfig is a CLI configuration that serves the build in dir for every
// address of the provider and installs anything else as usual.
func CLIConfig(dir string) string {
	var overrides strings.Builder
	for _, addr := range Addresses {
		fmt.Fprintf(&overrides, "    %q = %s\n", addr, strconv.Quote(filepath.ToSlash(dir)))
	}
	return "provider_installation {\n  dev_overrides {\n" + overrides.String() + "  }\n  direct {}\n}\n"
}
