package doccheck

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/labs"
)

// labRef is one lab or exercise that a Labs cell names.
type labRef struct {
	kind string // "lab" or "exercise"
	id   string // "05-03": chapter directory number, file number
}

func (r labRef) String() string { return r.kind + " " + r.id }

// labIDPattern is the ID `minikafka lab list` and `exercise list` print.
var labIDPattern = regexp.MustCompile(`^[0-9]{2}-[0-9]{2}$`)

// parseLabs reads a Labs cell: "—" when no lab or exercise shows the
// behaviour, or groups separated by ";", each "lab ID" or "labs ID, ID, …"
// (labs), or "exercise ID" or "exercises ID, ID, …" (exercises). Anything
// else is an error, so that a typo cannot hide an ID from the check.
func parseLabs(cell string) ([]labRef, error) {
	cell = strings.TrimSpace(cell)
	switch cell {
	case "—":
		return nil, nil
	case "":
		return nil, errors.New("empty: write — when no lab or exercise shows the behaviour")
	}
	var out []labRef
	for _, group := range strings.Split(cell, ";") {
		group = strings.TrimSpace(group)
		word, rest, _ := strings.Cut(group, " ")
		var kind string
		plural := strings.HasSuffix(word, "s")
		switch word {
		case "lab", "labs":
			kind = "lab"
		case "exercise", "exercises":
			kind = "exercise"
		default:
			return out, fmt.Errorf("%q: start each group with lab, labs, exercise or exercises", group)
		}
		ids := strings.Split(rest, ",")
		if plural != (len(ids) > 1) {
			return out, fmt.Errorf("%q: %q names %d IDs (lab and exercise take one, labs and exercises several)", group, word, len(ids))
		}
		for _, id := range ids {
			ref := labRef{kind: kind, id: strings.TrimSpace(id)}
			if !labIDPattern.MatchString(ref.id) {
				return out, fmt.Errorf("%q: %q is not an ID like 05-03", group, ref.id)
			}
			if slices.Contains(out, ref) {
				return out, fmt.Errorf("%s is named twice", ref)
			}
			out = append(out, ref)
		}
	}
	return out, nil
}

// TestBehaviorMatrixLabs checks the Labs column against the material under
// labs/, loaded the way `minikafka lab list` loads it: every lab and
// exercise a row names must exist. Labs and exercises no row names are
// logged, for authors looking for rows to fill.
func TestBehaviorMatrixLabs(t *testing.T) {
	data, err := os.ReadFile(matrixPath)
	if err != nil {
		t.Fatal(err)
	}
	rows := parseMatrix(t, string(data))
	cat, err := labs.Load(os.DirFS(repoRoot), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cat.Problems {
		t.Logf("labs/ has a file the loader refuses (its ID counts as missing): %v", p)
	}
	known := map[labRef]string{}
	for _, l := range cat.Labs {
		known[labRef{"lab", l.ID}] = l.Slug
	}
	for _, e := range cat.Exercises {
		known[labRef{"exercise", e.ID}] = e.Slug
	}
	if len(known) == 0 {
		t.Fatal("no labs or exercises found under labs/")
	}
	named := map[labRef]bool{}
	for _, r := range rows {
		refs, err := parseLabs(r.labs)
		if err != nil {
			t.Errorf("behavior-matrix.md:%d: %s: Labs: %v", r.line, r.key, err)
			continue
		}
		for _, ref := range refs {
			named[ref] = true
			if _, ok := known[ref]; !ok {
				t.Errorf("behavior-matrix.md:%d: %s: no %s under labs/ (`minikafka %s list` shows them)", r.line, r.key, ref, ref.kind)
			}
		}
	}
	var unnamed []string
	for ref, slug := range known {
		if !named[ref] {
			unnamed = append(unnamed, ref.String()+" "+slug)
		}
	}
	slices.Sort(unnamed)
	for _, u := range unnamed {
		t.Logf("named by no row: %s", u)
	}
}

// TestParseLabs pins the Labs column's syntax.
func TestParseLabs(t *testing.T) {
	cases := []struct {
		cell string
		want []labRef
		err  bool
	}{
		{"—", nil, false},
		{"lab 05-03", []labRef{{"lab", "05-03"}}, false},
		{"labs 05-03, 09-02; exercise 05-03",
			[]labRef{{"lab", "05-03"}, {"lab", "09-02"}, {"exercise", "05-03"}}, false},
		{"exercises 01-03, 05-02", []labRef{{"exercise", "01-03"}, {"exercise", "05-02"}}, false},
		{"", nil, true},
		{"labs 05-03", nil, true},        // plural with one ID
		{"lab 05-03, 09-02", nil, true},  // singular with two
		{"lab 5-3", nil, true},           // not NN-MM
		{"05-03", nil, true},             // no kind
		{"chapter 05", nil, true},        // not a lab or exercise
		{"labs 05-03, 05-03", nil, true}, // named twice
		{"lab 05-03 (leader failure)", nil, true},
	}
	for _, c := range cases {
		got, err := parseLabs(c.cell)
		if (err != nil) != c.err {
			t.Errorf("%q: err %v", c.cell, err)
			continue
		}
		if !c.err && !slices.Equal(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.cell, got, c.want)
		}
	}
}
