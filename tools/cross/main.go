// Command cross checks that the module builds on every platform that
// .goreleaser.yml releases for, without compiling for each: per GOOS/GOARCH
// it type-checks every package of the module and of its dependencies from
// source, with cgo off as a release builds. That finds what a build would
// (a symbol missing on the platform, a type that differs, a file that no
// build constraint selects) in seconds a platform, where compiling the cloud
// SDKs takes minutes for each. The platforms given with -built are left
// out (make cross compiles and vets them), and so is this machine's own,
// which every other target compiles.
//
//	go run -C tools/cross . -built "windows/amd64 darwin/arm64" MODULE_DIR
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	"golang.org/x/tools/go/packages"
)

func main() {
	built := flag.String("built", "", "GOOS/GOARCH pairs, separated by spaces or commas, compiled elsewhere: not type-checked here")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: cross [-built 'GOOS/GOARCH ...'] MODULE_DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), strings.Fields(strings.ReplaceAll(*built, ",", " "))); err != nil {
		fmt.Fprintln(os.Stderr, "cross:", err)
		os.Exit(1)
	}
}

func run(dir string, built []string) error {
	release := filepath.Join(dir, ".goreleaser.yml")
	platforms, err := releasedPlatforms(release)
	if err != nil {
		return err
	}
	for _, p := range built {
		if !slices.Contains(platforms, p) {
			return fmt.Errorf("-built names %s, which %s does not release", p, release)
		}
	}
	out, err := exec.Command("go", "tool", "dist", "list").Output()
	if err != nil {
		return fmt.Errorf("go tool dist list: %w", err)
	}
	known := strings.Fields(string(out))
	failed := 0
	for _, p := range platforms {
		switch {
		case slices.Contains(built, p) || p == runtime.GOOS+"/"+runtime.GOARCH:
			continue
		case !slices.Contains(known, p):
			// goreleaser, too, skips a pair its Go cannot build.
			fmt.Printf("%s: released by %s, but this Go cannot build it: left out\n", p, release)
			continue
		}
		start := time.Now()
		n, errs, err := typeCheck(dir, p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, e := range errs {
			fmt.Fprintf(os.Stderr, "%s: %s\n", p, e)
		}
		if len(errs) > 0 {
			failed++
		}
		fmt.Printf("type-check %s: %d packages, %d errors, %.0f s\n", p, n, len(errs), time.Since(start).Seconds())
	}
	if failed > 0 {
		return fmt.Errorf("%d platforms do not build", failed)
	}
	return nil
}

// typeCheck loads every package of the module in dir for platform, with
// its dependencies, all from source, and returns how many packages it
// checked and every error found in any of them.
func typeCheck(dir, platform string) (int, []packages.Error, error) {
	goos, goarch, _ := strings.Cut(platform, "/")
	cfg := &packages.Config{
		Mode: packages.LoadAllSyntax,
		Dir:  dir,
		Env:  append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch),
	}
	roots, err := packages.Load(cfg, "./...")
	if err != nil {
		return 0, nil, err
	}
	n := 0
	var errs []packages.Error
	packages.Visit(roots, nil, func(p *packages.Package) {
		n++
		errs = append(errs, p.Errors...)
	})
	return n, errs, nil
}

// releasedPlatforms returns the GOOS/GOARCH pairs of every build of the
// goreleaser configuration at path, sorted, less those a build ignores. A
// build that lists no GOOS or no GOARCH is an error rather than goreleaser's
// defaults, which would go unchecked here.
func releasedPlatforms(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	type platform struct {
		Goos   string `yaml:"goos"`
		Goarch string `yaml:"goarch"`
	}
	var config struct {
		Builds []struct {
			Goos   []string   `yaml:"goos"`
			Goarch []string   `yaml:"goarch"`
			Ignore []platform `yaml:"ignore"`
		} `yaml:"builds"`
	}
	if err := yaml.Unmarshal(b, &config); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(config.Builds) == 0 {
		return nil, errors.New(path + ": no builds")
	}
	var platforms []string
	for i, build := range config.Builds {
		if len(build.Goos) == 0 || len(build.Goarch) == 0 {
			return nil, fmt.Errorf("%s: build %d lists no goos or no goarch", path, i)
		}
		for _, goos := range build.Goos {
			for _, goarch := range build.Goarch {
				// An ignore entry's empty field matches any.
				if !slices.ContainsFunc(build.Ignore, func(ig platform) bool {
					return (ig.Goos == "" || ig.Goos == goos) && (ig.Goarch == "" || ig.Goarch == goarch)
				}) {
					platforms = append(platforms, goos+"/"+goarch)
				}
			}
		}
	}
	slices.Sort(platforms)
	return slices.Compact(platforms), nil
}
