package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// adapterDirs may use goroutines, select and real time: they are the thin
// adapters over the deterministic engine (architecture principle 1).
var adapterDirs = []string{}

// realTimeFiles may read the wall clock (the System clock for servers).
var realTimeFiles = []string{filepath.Join("clock", "system.go")}

// TestEngineIsDeterministic parses every non-test Go file under engine/ and
// fails on a go statement, a select statement, time.Now/Sleep/After/Tick/
// NewTimer/NewTicker/Since/Until, or a package-level math/rand function.
// Randomness must come from a seeded *rand.Rand owned by the cluster.
func TestEngineIsDeterministic(t *testing.T) {
	t.Parallel()
	forbiddenTime := map[string]bool{"Now": true, "Sleep": true, "After": true, "AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true, "Since": true, "Until": true}
	allowedRand := map[string]bool{"New": true, "NewPCG": true, "NewSource": true, "NewChaCha8": true, "NewZipf": true}
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			for _, a := range adapterDirs {
				if path == a {
					return filepath.SkipDir
				}
			}
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		imports := map[string]string{} // local name -> import path
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			name := filepath.Base(p)
			if p == "math/rand/v2" {
				name = "rand"
			}
			if imp.Name != nil {
				name = imp.Name.Name
			}
			imports[name] = p
		}
		realTimeOK := false
		for _, rf := range realTimeFiles {
			realTimeOK = realTimeOK || path == rf
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: go statement (the engine is single-threaded)", fset.Position(n.Pos()))
			case *ast.SelectStmt:
				t.Errorf("%s: select statement (the engine never waits)", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				id, ok := n.X.(*ast.Ident)
				if !ok {
					return true
				}
				switch imports[id.Name] {
				case "time":
					if forbiddenTime[n.Sel.Name] && !realTimeOK {
						t.Errorf("%s: time.%s (use the injected clock)", fset.Position(n.Pos()), n.Sel.Name)
					}
				case "math/rand", "math/rand/v2":
					if !allowedRand[n.Sel.Name] && ast.IsExported(n.Sel.Name) && n.Sel.Name != "Rand" && n.Sel.Name != "Source" {
						t.Errorf("%s: global rand.%s (use the cluster's seeded RNG)", fset.Position(n.Pos()), n.Sel.Name)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no engine files were checked")
	}
}
