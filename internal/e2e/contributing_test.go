package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// TestContributingPicksEveryProviderTest holds CONTRIBUTING.md's table of
// which tests to run to the provider's tests: every test named
// Test<Subject>_<case> (or TestAcc<Subject>_<case>) is picked by a row's
// -run pattern, and every pattern picks at least one test.
func TestContributingPicksEveryProviderTest(t *testing.T) {
	t.Parallel()
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	patterns := contributingRunPatterns(t, filepath.Join(root, "CONTRIBUTING.md"))
	names := subjectTestNames(t, filepath.Join(root, "internal", "provider"))
	if len(patterns) < 5 || len(names) < 100 {
		t.Fatalf("found %d -run patterns and %d provider tests: the parsers no longer read the files", len(patterns), len(names))
	}
	picked := make([]int, len(patterns))
	for _, name := range names {
		found := false
		for i, re := range patterns {
			if re.MatchString(name) {
				picked[i]++
				found = true
			}
		}
		if !found {
			t.Errorf("%s is picked by no row of CONTRIBUTING.md's table of which tests to run", name)
		}
	}
	for i, re := range patterns {
		if picked[i] == 0 {
			t.Errorf("CONTRIBUTING.md's -run pattern %q picks no provider test", re)
		}
	}
}

// contributingRunPatterns reads the -run column of the table under
// "Which tests to run": each row's pattern in '…' inside a code span, with
// the table's \| read as |.
func contributingRunPatterns(t *testing.T, path string) []*regexp.Regexp {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "### Which tests to run")
	if !ok {
		t.Fatal("CONTRIBUTING.md has no section \"Which tests to run\"")
	}
	section, _, _ = strings.Cut(section, "\n#")
	var patterns []*regexp.Regexp
	for line := range strings.Lines(section) {
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[2]), "`'") {
			continue
		}
		pattern := strings.Trim(strings.TrimSpace(cells[2]), "`'")
		re, err := regexp.Compile(strings.ReplaceAll(pattern, "\x00", "|"))
		if err != nil {
			t.Fatalf("CONTRIBUTING.md's -run pattern %q: %v", pattern, err)
		}
		patterns = append(patterns, re)
	}
	return patterns
}

// subjectTestNames are the names of dir's tests shaped Test<Subject>_<case>.
func subjectTestNames(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	test := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9]+_[A-Za-z0-9_]+)\(t \*testing\.T\)`)
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range test.FindAllSubmatch(data, -1) {
			names = append(names, string(m[1]))
		}
	}
	return names
}
