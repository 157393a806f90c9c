package repl

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/labs"
)

// TestConcepts: the concept files parse; every language has the same
// topics with the same chapters, labs, exercises and related topics; what
// they name exists in the repository's material; no name is a command's;
// every line fits 80 columns.
func TestConcepts(t *testing.T) {
	all, err := concepts()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := labs.Load(os.DirFS(".."), "")
	if err != nil {
		t.Fatal(err)
	}
	en := all[labs.English]
	if len(en) < 30 {
		t.Errorf("only %d concepts", len(en))
	}
	names := map[string]bool{}
	for _, c := range en {
		for _, n := range append([]string{c.Name}, c.Aliases...) {
			if names[n] {
				t.Errorf("%s is named twice", n)
			}
			names[n] = true
			if theRegistry().Lookup(n) != nil || n == "concepts" {
				t.Errorf("%s is a command: help %s would never reach the concept", n, n)
			}
		}
	}
	for _, c := range en {
		if _, err := cat.Chapter(fmt.Sprint(c.Chapter)); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		for _, l := range c.Labs {
			if _, err := cat.Lab(l); err != nil {
				t.Errorf("%s: %v", c.Name, err)
			}
		}
		for _, e := range c.Exercises {
			if _, err := cat.Exercise(e); err != nil {
				t.Errorf("%s: %v", c.Name, err)
			}
		}
		for _, r := range c.Related {
			if !names[r] {
				t.Errorf("%s: related %q is not a concept", c.Name, r)
			}
		}
	}
	for _, lang := range labs.Translations {
		tr := all[lang]
		if len(tr) != len(en) {
			t.Fatalf("%s has %d concepts, English %d", lang, len(tr), len(en))
		}
		for i := range en {
			a, b := en[i], tr[i]
			if a.Name != b.Name || !slices.Equal(a.Aliases, b.Aliases) || a.Chapter != b.Chapter ||
				!slices.Equal(a.Labs, b.Labs) || !slices.Equal(a.Exercises, b.Exercises) || !slices.Equal(a.Related, b.Related) {
				t.Errorf("%s: %s differs from the English entry %s", lang, b.Name, a.Name)
			}
		}
	}
	for lang, cs := range all {
		for _, c := range cs {
			for _, l := range c.Definition {
				if w := textWidth("  " + l); w > 80 {
					t.Errorf("%s %s: %d columns: %s", lang, c.Name, w, l)
				}
			}
		}
	}
}

// TestHelpConcept: help TOPIC explains a concept (by name or alias, in the
// session's language), commands keep their help, and an unknown word is
// still an unknown command.
func TestHelpConcept(t *testing.T) {
	s := newTestSession(t, Options{Content: os.DirFS("..")})
	got := runLines(t, s, "help hw")
	for _, want := range []string{"hw (high-watermark, watermark)\n  The high watermark (HW)", "Taught in chapter 5 (Replication I: followers and watermarks): read 5.", "lab step 05-01"} {
		if !strings.Contains(got, want) {
			t.Errorf("help hw lacks %q:\n%s", want, got)
		}
	}
	if got := runLines(t, s, "help IN-SYNC-REPLICAS"); !strings.HasPrefix(got, "isr (in-sync-replicas)") {
		t.Errorf("alias:\n%s", got)
	}
	if got := runLines(t, s, "help show"); !strings.HasPrefix(got, "show: the picture") {
		t.Errorf("a command keeps its help:\n%s", got)
	}
	zh := newTestSession(t, Options{Content: os.DirFS(".."), Lang: labs.Chinese})
	if got := runLines(t, zh, "help lso"); !strings.Contains(got, "最后稳定偏移量") || !strings.Contains(got, "在第 8 章") {
		t.Errorf("Chinese:\n%s", got)
	}
	if _, cands := s.Complete("help is"); !slices.Contains(cands, "isr ") {
		t.Errorf("completion: %q", cands)
	}
}
