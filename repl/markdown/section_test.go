package markdown

import (
	"strings"
	"testing"
)

func TestSection(t *testing.T) {
	src := []byte("# 1. Title\n\nIntro.\n\n## What you learn\n\nA.\n\n```mk\n## not a heading\n```\n\n## The log\n\nB.\n")
	for _, which := range []string{"2", "LOG", "the"} {
		got, err := Section(src, which)
		if err != nil || string(got) != "# 1. Title\n\n## The log\n\nB.\n\n" && which != "the" {
			t.Errorf("%s: %q %v", which, got, err)
		}
	}
	got, err := Section(src, "1")
	if err != nil || !strings.Contains(string(got), "## not a heading") || strings.Contains(string(got), "B.") {
		t.Errorf("1: %q %v", got, err)
	}
	if _, err := Section(src, "3"); err == nil || !strings.Contains(err.Error(), "1 What you learn; 2 The log") {
		t.Errorf("3: %v", err)
	}
}

// FuzzSection: picking a section of any text never panics, and what it
// returns starts with the text's title (or nothing) and one ## heading.
func FuzzSection(f *testing.F) {
	f.Add([]byte("# T\n\n## A\n\na\n\n```\n## no\n```\n## B\nb\n"), "2")
	f.Add([]byte("## only\n"), "only")
	f.Fuzz(func(t *testing.T, src []byte, which string) {
		got, err := Section(src, which)
		if err != nil {
			return
		}
		if !strings.Contains(string(got), "\n## ") && !strings.HasPrefix(string(got), "## ") {
			t.Fatalf("no section heading in %q", got)
		}
	})
}
