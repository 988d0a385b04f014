package provider

import (
	"go/ast"
	"testing"
)

// TestOnlyBeginOperationReadsTimeouts holds DESIGN's statement that
// beginOperation (wait.go) begins every bounded operation: no other code
// reads a timeouts block's value. Elsewhere a block's Create, Read, Update
// or Delete appears only as the method handed to beginOperation, and no
// function takes a timeouts.Value to read it later.
func TestOnlyBeginOperationReadsTimeouts(t *testing.T) {
	files, fset := parsedSources(t)
	handed := 0
	for name, f := range files {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			defer func() { stack = append(stack, n) }()
			switch n := n.(type) {
			case *ast.SelectorExpr:
				block, ok := n.X.(*ast.SelectorExpr)
				if !ok || block.Sel.Name != "Timeouts" || !operationNames[n.Sel.Name] {
					return true
				}
				if call, ok := stack[len(stack)-1].(*ast.CallExpr); ok && call.Fun != n && isCallOf(call, "beginOperation") {
					handed++
					return true
				}
				t.Errorf("%s reads the timeouts block (%s) itself: hand %s to beginOperation", fset.Position(n.Pos()), n.Sel.Name, n.Sel.Name)
			case *ast.FuncType:
				for _, param := range n.Params.List {
					if sel, ok := param.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Value" && isIdent(sel.X, "timeouts") {
						t.Errorf("%s takes a timeouts.Value in %s: hand its method to beginOperation instead", fset.Position(param.Pos()), name)
					}
				}
			}
			return true
		})
	}
	if handed < 8 {
		t.Errorf("only %d operations hand their timeouts to beginOperation: the test does not see them", handed)
	}
}

var operationNames = map[string]bool{"Create": true, "Read": true, "Update": true, "Delete": true}

func isCallOf(call *ast.CallExpr, name string) bool { return isIdent(call.Fun, name) }

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
