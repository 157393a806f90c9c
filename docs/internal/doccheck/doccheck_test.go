// Package doccheck checks docs/behavior-matrix.md against the repository:
// every test the matrix names exists where it says, every scenario of the
// spec's §17 catalogue and every project decision has a row with a test,
// an explicit "not applicable: reason", or a known gap, and every lab and
// exercise its Labs column names exists under labs/.
package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const (
	matrixPath = "../../behavior-matrix.md"
	repoRoot   = "../../.."
)

// knownGaps are the rows that say "not covered": behaviour nothing pins yet.
// Keep this list and the matrix in step; a gap closed by a new test must be
// removed from both.
var knownGaps = []string{}

// scenarioIDs is §17's catalogue: U1–F4 and the extra scenarios E1–E10.
func scenarioIDs() []string {
	groups := []struct {
		prefix string
		n      int
	}{
		{"U", 4}, {"C", 8}, {"I", 4}, {"M", 4}, {"P", 2}, {"A", 2}, {"S", 7},
		{"L", 5}, {"R", 5}, {"K", 6}, {"D", 3}, {"PR", 10}, {"CO", 6}, {"G", 6},
		{"RP", 17}, {"T", 11}, {"N", 3}, {"LC", 3}, {"F", 4}, {"E", 10},
	}
	var ids []string
	for _, g := range groups {
		for i := 1; i <= g.n; i++ {
			ids = append(ids, g.prefix+strconv.Itoa(i))
		}
	}
	return ids
}

const decisions = 44

// row is one table row of the matrix.
type row struct {
	line  int
	key   string // "RP12", "decision 6", or the first cell of another table
	tests []testRef
	na    bool   // "not applicable: reason"
	gap   bool   // "not covered: reason"
	labs  string // the Labs cell, read by parseLabs
}

type testRef struct {
	name, file string
}

var (
	// namePattern and filePattern find the test names and the file that
	// follows them: `TestA`, `TestB` (path/x_test.go). reasonAfter finds an
	// explicit "not applicable:" or "not covered:" reason.
	namePattern = regexp.MustCompile("`((?:Test|Example|Fuzz|Benchmark)[A-Za-z0-9_]*)`")
	filePattern = regexp.MustCompile(`\(([A-Za-z0-9_./-]+_test\.go)\)`)
	reasonAfter = regexp.MustCompile(`(?i)\b(not applicable|not covered):\s*(\S.*)`)
)

// parseMatrix reads the matrix's tables. A table whose header's first cell
// is "Scenario" or "Decision" declares ids; other tables only name tests.
func parseMatrix(t *testing.T, text string) []row {
	t.Helper()
	var rows []row
	kind := ""
	inTable := false
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		cells := splitRow(line)
		if !inTable {
			inTable = true
			kind = strings.ToLower(cells[0])
			continue
		}
		if len(cells) > 0 && strings.Trim(cells[0], "-: ") == "" {
			continue // the |---| separator
		}
		if len(cells) != 4 {
			t.Errorf("behavior-matrix.md:%d: a row needs 4 cells (id, what, tests, labs), got %d", n, len(cells))
			continue
		}
		r := row{line: n, key: strings.Trim(cells[0], "`* "), labs: cells[3]}
		if kind == "decision" {
			r.key = "decision " + r.key
		}
		tests, err := parseTests(cells[2])
		if err != nil {
			t.Errorf("behavior-matrix.md:%d: %v", n, err)
		}
		r.tests = tests
		if m := reasonAfter.FindStringSubmatch(cells[2]); m != nil {
			switch strings.ToLower(m[1]) {
			case "not applicable":
				r.na = true
			case "not covered":
				r.gap = true
			}
		}
		rows = append(rows, r)
	}
	return rows
}

func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	parts := strings.Split(line, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// parseTests reads `Name`, `Name` (file) groups. Every name must be
// followed by a file. A "not applicable" or "not covered" reason may mention
// test names in passing; those are not references.
func parseTests(cell string) ([]testRef, error) {
	refs := cell
	if loc := reasonAfter.FindStringIndex(cell); loc != nil {
		refs = cell[:loc[0]]
	}
	var out []testRef
	var pending []string
	for len(refs) > 0 {
		nameLoc := namePattern.FindStringSubmatchIndex(refs)
		fileLoc := filePattern.FindStringSubmatchIndex(refs)
		switch {
		case nameLoc == nil && fileLoc == nil:
			refs = ""
		case fileLoc == nil || (nameLoc != nil && nameLoc[0] < fileLoc[0]):
			pending = append(pending, refs[nameLoc[2]:nameLoc[3]])
			refs = refs[nameLoc[1]:]
		default:
			file := refs[fileLoc[2]:fileLoc[3]]
			if len(pending) == 0 {
				return out, fmt.Errorf("file %s names no test", file)
			}
			for _, name := range pending {
				out = append(out, testRef{name: name, file: file})
			}
			pending = nil
			refs = refs[fileLoc[1]:]
		}
	}
	if len(pending) > 0 {
		return out, fmt.Errorf("tests %v are not followed by their file (path/x_test.go)", pending)
	}
	return out, nil
}

// testFuncs parses a Go test file and returns its top-level test, example,
// fuzz and benchmark functions.
func testFuncs(path string) (map[string]bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil {
			continue
		}
		name := fd.Name.Name
		for _, prefix := range []string{"Test", "Example", "Fuzz", "Benchmark"} {
			if strings.HasPrefix(name, prefix) {
				out[name] = true
			}
		}
	}
	return out, nil
}

// TestBehaviorMatrix is the doc contract of docs/behavior-matrix.md (§17 F3).
func TestBehaviorMatrix(t *testing.T) {
	data, err := os.ReadFile(matrixPath)
	if err != nil {
		t.Fatal(err)
	}
	rows := parseMatrix(t, string(data))
	if len(rows) == 0 {
		t.Fatal("no table rows found")
	}

	// Every named test exists in the named file.
	files := map[string]map[string]bool{}
	for _, r := range rows {
		for _, ref := range r.tests {
			funcs, ok := files[ref.file]
			if !ok {
				funcs, err = testFuncs(filepath.Join(repoRoot, filepath.FromSlash(ref.file)))
				if err != nil {
					t.Errorf("behavior-matrix.md:%d: %v", r.line, err)
				}
				files[ref.file] = funcs
			}
			if funcs != nil && !funcs[ref.name] {
				t.Errorf("behavior-matrix.md:%d: %s: no func %s in %s", r.line, r.key, ref.name, ref.file)
			}
		}
		if len(r.tests) == 0 && !r.na && !r.gap {
			t.Errorf("behavior-matrix.md:%d: %s names no test and gives no \"not applicable:\" or \"not covered:\" reason", r.line, r.key)
		}
		if len(r.tests) > 0 && (r.na || r.gap) {
			t.Errorf("behavior-matrix.md:%d: %s names tests and also says it has none", r.line, r.key)
		}
	}

	// Every scenario and every decision has exactly one row.
	count := map[string]int{}
	for _, r := range rows {
		count[r.key]++
	}
	required := scenarioIDs()
	for d := 1; d <= decisions; d++ {
		required = append(required, "decision "+strconv.Itoa(d))
	}
	for _, id := range required {
		switch count[id] {
		case 0:
			t.Errorf("behavior-matrix.md: %s has no row", id)
		case 1:
		default:
			t.Errorf("behavior-matrix.md: %s has %d rows; keep one", id, count[id])
		}
	}

	// The gaps are exactly the known ones.
	var gaps []string
	for _, r := range rows {
		if r.gap {
			gaps = append(gaps, r.key)
		}
	}
	sort.Strings(gaps)
	want := slices.Clone(knownGaps)
	sort.Strings(want)
	if !slices.Equal(gaps, want) {
		t.Errorf("\"not covered\" rows %v, but knownGaps lists %v: update both together", gaps, want)
	}
	for _, g := range gaps {
		t.Logf("gap: %s", g)
	}
}

// TestParseTests pins the reference syntax the matrix uses.
func TestParseTests(t *testing.T) {
	cases := []struct {
		cell string
		want []testRef
		err  bool
	}{
		{"`TestA` (a/x_test.go)", []testRef{{"TestA", "a/x_test.go"}}, false},
		{"`TestA`, `FuzzB` (a/x_test.go); `ExampleC` (b/y_test.go)",
			[]testRef{{"TestA", "a/x_test.go"}, {"FuzzB", "a/x_test.go"}, {"ExampleC", "b/y_test.go"}}, false},
		{"`TestA` (a/x_test.go) — partly: no restart case", []testRef{{"TestA", "a/x_test.go"}}, false},
		{"not applicable: pinned by `TestReadme` instead", nil, false},
		{"`TestA`", nil, true},
		{"(a/x_test.go)", nil, true},
	}
	for _, c := range cases {
		got, err := parseTests(c.cell)
		if (err != nil) != c.err {
			t.Errorf("%q: err %v", c.cell, err)
			continue
		}
		if !c.err && !slices.Equal(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.cell, got, c.want)
		}
	}
}
