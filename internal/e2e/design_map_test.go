package e2e

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// TestDesignMapMatchesDepguard holds DESIGN.md's table of packages to the
// import rules make lint enforces: every strict depguard list
// (design-<package> in .golangci.yml) is the row's "may import" column,
// word for word; every package of the module has a row; a row that lists
// its imports has a list in .golangci.yml; and every internal package a row
// may import is on a lower floor.
func TestDesignMapMatchesDepguard(t *testing.T) {
	t.Parallel()
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	module := modulePath(t, root)
	rules := depguardLists(t, filepath.Join(root, ".golangci.yml"), module)
	rows := designRows(t, filepath.Join(root, "DESIGN.md"))
	if len(rules) == 0 || len(rows) == 0 {
		t.Fatalf("found %d depguard lists and %d rows of DESIGN.md's table: the parsers no longer read the files", len(rules), len(rows))
	}

	for pkg, allowed := range rules {
		row, ok := rows[pkg]
		if !ok {
			t.Errorf("%s has a depguard list but no row in DESIGN.md's table of packages", pkg)
			continue
		}
		if row.anything {
			t.Errorf("DESIGN.md says %s may import anything, but .golangci.yml allows only %q", pkg, allowed)
			continue
		}
		if missing := difference(allowed, row.imports); len(missing) > 0 {
			t.Errorf("%s: .golangci.yml allows %q, which DESIGN.md's row does not list", pkg, missing)
		}
		if extra := difference(row.imports, allowed); len(extra) > 0 {
			t.Errorf("%s: DESIGN.md's row lists %q, which .golangci.yml does not allow", pkg, extra)
		}
	}

	for _, pkg := range modulePackages(t, root) {
		row, ok := rowFor(rows, pkg)
		if !ok {
			t.Errorf("%s has no row in DESIGN.md's table of packages", pkg)
			continue
		}
		if _, listed := rules[pkg]; !listed && !row.anything {
			t.Errorf("DESIGN.md lists what %s may import, but .golangci.yml has no design-%s list enforcing it", pkg, filepath.Base(pkg))
		}
	}

	for pkg, row := range rows {
		if row.floor < 0 {
			continue
		}
		for _, imp := range row.imports {
			dep, ok := rows["internal/"+imp]
			if !ok {
				continue // not an internal package
			}
			if dep.floor < 0 || dep.floor >= row.floor {
				t.Errorf("DESIGN.md: %s (floor %d) may import %s (floor %d): imports must run down", pkg, row.floor, imp, dep.floor)
			}
		}
	}
}

// designRow is one row of DESIGN.md's table of packages.
type designRow struct {
	floor    int // -1 for tools and tests, which stand apart
	imports  []string
	anything bool
}

var (
	backticked  = regexp.MustCompile("`([^`]+)`")
	htmlComment = regexp.MustCompile(`<!--.*?-->`)
)

// designRows reads the table whose header is "| floor | package | concern |
// may import |", keyed by package directory ("." for main).
func designRows(t *testing.T, path string) map[string]designRow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]designRow{}
	in := false
	for line := range strings.SplitSeq(string(data), "\n") {
		if strings.HasPrefix(line, "| floor | package |") {
			in = true
			continue
		}
		if !in || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 4 {
			t.Fatalf("DESIGN.md: a row of the table of packages has %d cells, not 4: %s", len(cells), line)
		}
		row := designRow{floor: -1}
		if f, err := strconv.Atoi(strings.TrimSpace(cells[0])); err == nil {
			row.floor = f
		}
		imports := htmlComment.ReplaceAllString(cells[3], "")
		row.anything = strings.HasPrefix(strings.TrimSpace(imports), "anything")
		if strings.Contains(imports, "standard library") {
			row.imports = append(row.imports, "standard library")
		}
		for _, m := range backticked.FindAllStringSubmatch(imports, -1) {
			row.imports = append(row.imports, m[1])
		}
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			if m[1] == "." || strings.HasPrefix(m[1], "internal/") {
				rows[m[1]] = row
			}
		}
	}
	return rows
}

// rowFor finds the row of pkg, directly or through a row of a tree
// ("internal/cmd/...").
func rowFor(rows map[string]designRow, pkg string) (designRow, bool) {
	if row, ok := rows[pkg]; ok {
		return row, true
	}
	for name, row := range rows {
		if tree, ok := strings.CutSuffix(name, "/..."); ok && strings.HasPrefix(pkg, tree+"/") {
			return row, true
		}
	}
	return designRow{}, false
}

// depguardLists reads the design-<package> lists of .golangci.yml, keyed by
// package directory, each entry written as DESIGN.md writes it: "standard
// library", an internal package by its short name, a module path, or a
// module's tree as "path/...".
func depguardLists(t *testing.T, path, module string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string][]string{}
	var pkg, key string
	var allow []string
	ruleIndent := -1
	flush := func() {
		if pkg != "" {
			lists[pkg] = allow
		}
		pkg, key, allow, ruleIndent = "", "", nil, -1
	}
	ruleName := regexp.MustCompile(`^(\s*)design-[a-z0-9-]+:\s*$`)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if m := ruleName.FindStringSubmatch(line); m != nil {
			flush()
			ruleIndent = len(m[1])
			pkg = "?"
			continue
		}
		if ruleIndent < 0 || trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if indent <= ruleIndent {
			flush()
			continue
		}
		if item, ok := strings.CutPrefix(trimmed, "- "); ok {
			item = strings.Trim(item, `"`)
			switch key {
			case "files":
				if pkg == "?" && !strings.HasPrefix(item, "!") {
					pkg = packageOfGlob(item)
				}
			case "allow":
				allow = append(allow, designName(item, module))
			}
			continue
		}
		key = strings.TrimSuffix(trimmed, ":")
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	delete(lists, "?")
	return lists
}

// packageOfGlob is the package directory a rule's files glob names:
// "**/internal/client/*.go" is internal/client, "**/main.go" the root.
func packageOfGlob(glob string) string {
	glob = strings.TrimPrefix(glob, "**/")
	if glob == "main.go" {
		return "."
	}
	return strings.TrimSuffix(glob, "/*.go")
}

// designName writes a depguard allow entry as DESIGN.md's table does.
func designName(entry, module string) string {
	if entry == "$gostd" {
		return "standard library"
	}
	if short, ok := strings.CutPrefix(entry, module+"/internal/"); ok {
		return strings.TrimSuffix(short, "$")
	}
	if short, ok := strings.CutPrefix(entry, module+"/"); ok {
		return strings.TrimSuffix(short, "$")
	}
	if exact, ok := strings.CutSuffix(entry, "$"); ok {
		return exact
	}
	return strings.TrimSuffix(entry, "/") + "/..."
}

func modulePath(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if m, ok := strings.CutPrefix(line, "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// modulePackages lists the directories of the module, relative to root,
// that hold Go files other than tests ("." for the root), tools/ aside, a
// module of its own.
func modulePackages(t *testing.T, root string) []string {
	t.Helper()
	var pkgs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "tools" || rel == "examples" || rel == "docs") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dir := filepath.ToSlash(filepath.Dir(rel))
			if !slices.Contains(pkgs, dir) {
				pkgs = append(pkgs, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// difference is what a holds that b does not.
func difference(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// The provider package's production lines are capped, as DESIGN.md says,
// so that logic which does not need the plugin framework goes to a package
// below it; and no shipped Go file grows past what a reader takes in at
// once.
const (
	providerLineCap = 8375
	fileLineCap     = 800
)

func TestProviderPackageStaysWithinItsCap(t *testing.T) {
	t.Parallel()
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	provider := 0
	largest, largestLines := "", 0
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "tools") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines := bytes.Count(data, []byte("\n"))
		rel, _ := filepath.Rel(root, p)
		if lines > fileLineCap {
			t.Errorf("%s has %d lines, more than %d: split it by concern", rel, lines, fileLineCap)
		}
		if lines > largestLines {
			largest, largestLines = rel, lines
		}
		if filepath.Dir(rel) == filepath.Join("internal", "provider") {
			provider += lines
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if provider == 0 || provider > providerLineCap {
		t.Errorf("internal/provider has %d production lines; the cap is %d: move logic that needs no framework below it", provider, providerLineCap)
	}
	t.Logf("internal/provider: %d production lines of %d; the largest shipped file: %s, %d lines of %d",
		provider, providerLineCap, largest, largestLines, fileLineCap)
}

// DESIGN.md stays a map a newcomer reads in one sitting: detail goes to the
// package doc comments beside the code.
func TestDesignMapStaysShort(t *testing.T) {
	t.Parallel()
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "DESIGN.md"))
	if err != nil {
		t.Fatal(err)
	}
	words := len(strings.Fields(string(data)))
	if words == 0 || words > 4000 {
		t.Errorf("DESIGN.md has %d words, more than 4,000: move detail to the doc comment of the package it describes", words)
	}
	t.Logf("DESIGN.md: %d words of 4,000", words)
}
