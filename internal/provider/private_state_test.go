package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// parsedSources parses the package's shipped files, by name.
func parsedSources(t *testing.T) (map[string]*ast.File, *token.FileSet) {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	if len(files) < 20 {
		t.Fatalf("found only %d files: the test does not run in the package's directory", len(files))
	}
	return files, fset
}

// TestPrivateStateKeysLiveInPrivateStateGo holds DESIGN's statement that
// every key of private state is declared, written and read in
// private_state.go: no other file names a key, spells one, or reads or
// writes private state but through its functions.
func TestPrivateStateKeysLiveInPrivateStateGo(t *testing.T) {
	files, fset := parsedSources(t)
	keys := map[string]string{} // constant -> key
	for _, decl := range files["private_state.go"].Decls {
		if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.CONST {
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(name.Name, "private") {
						keys[name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
	}
	if len(keys) < 6 {
		t.Fatalf("found only the keys %v in private_state.go", keys)
	}
	values := map[string]bool{}
	for _, v := range keys {
		values[v] = true
	}
	internal := map[string]bool{"setPrivateJSON": true, "getPrivateJSON": true}
	for name, f := range files {
		if name == "private_state.go" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				if _, ok := keys[n.Name]; ok || internal[n.Name] {
					t.Errorf("%s uses %s: private state is written and read in private_state.go only", fset.Position(n.Pos()), n.Name)
				}
			case *ast.SelectorExpr:
				if n.Sel.Name == "GetKey" || n.Sel.Name == "SetKey" {
					t.Errorf("%s calls %s: private state is written and read in private_state.go only", fset.Position(n.Pos()), n.Sel.Name)
				}
			case *ast.BasicLit:
				if v, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && values[v] {
					t.Errorf("%s spells the private state key %q", fset.Position(n.Pos()), v)
				}
			}
			return true
		})
	}
}
