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

// TestFileAccessGoesThroughVFS parses every non-test Go file under engine/
// outside engine/vfs and fails on any use of package os other than its
// open-flag constants (os.O_RDWR, ...), on the *os.File type, and on
// importing syscall or io/ioutil: every file the engine touches goes
// through a vfs.FS, so tests and snapshots can swap the disk for memory.
// docs/architecture.md ("The file-system seam") gives the grep that says
// the same.
func TestFileAccessGoesThroughVFS(t *testing.T) {
	t.Parallel()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "vfs" || d.Name() == "testdata" {
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
		osName := ""
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch p {
			case "syscall", "io/ioutil":
				t.Errorf("%s: imports %s (file access goes through engine/vfs)", fset.Position(imp.Pos()), p)
			case "os":
				osName = "os"
				if imp.Name != nil {
					osName = imp.Name.Name
				}
			}
		}
		if osName == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName && !strings.HasPrefix(sel.Sel.Name, "O_") {
				t.Errorf("%s: os.%s (use the cluster's vfs.FS)", fset.Position(sel.Pos()), sel.Sel.Name)
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
