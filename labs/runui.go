package labs

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"
)

// ListLabs prints the labs of a catalog as a table: ID, slug, chapter,
// steps and title, the title in lang when the lab has a text in it.
func ListLabs(w io.Writer, cat *Catalog, lang Language) {
	if len(cat.Labs) == 0 {
		fmt.Fprintln(w, "No labs.")
		return
	}
	idW, slugW := len("ID"), len("SLUG")
	for _, l := range cat.Labs {
		idW = max(idW, utf8.RuneCountInString(l.ID))
		slugW = max(slugW, utf8.RuneCountInString(l.Slug))
	}
	fmt.Fprintf(w, "%s  %s  CHAPTER  STEPS  TITLE\n", pad("ID", idW), pad("SLUG", slugW))
	for _, l := range cat.Labs {
		title := l.Title
		if t, err := l.In(lang); err == nil {
			title = t.Title
		}
		fmt.Fprintf(w, "%s  %s  %7d  %5d  %s\n", pad(l.ID, idW), pad(l.Slug, slugW), l.Chapter, l.Steps(), title)
	}
}

// RunOptions control RunLabs.
type RunOptions struct {
	// Rewrite regenerates the expected output of the labs that ran to the
	// end and did not match, through Write.
	Rewrite bool
	// Write stores a lab's new source (required with Rewrite).
	Write func(l *Lab, src []byte) error
	// ExecutorFor, when set, picks the executor of each lab (see
	// DiskOncePerChapter); a nil answer is RunLabs' newExec.
	ExecutorFor func(l *Lab) NewExecutor
	// Parallel is how many labs run at a time (0 or 1: one after the
	// other; see RunLabs).
	Parallel int
}

// DiskOncePerChapter picks disk for the first lab of each chapter it is
// asked about and memory for the others: a run of many labs keeps most of
// its clusters in memory, and the disk path is still exercised in every
// chapter. A lab that damages files runs in memory too: corrupt, log dump
// and recovery reach the files through the cluster's file system, which
// behaves the same on both (repl's TestScripts runs every transcript on
// each and compares).
func DiskOncePerChapter(disk, memory NewExecutor) func(l *Lab) NewExecutor {
	seen := map[int]bool{}
	return func(l *Lab) NewExecutor {
		if seen[l.Chapter] {
			return memory
		}
		seen[l.Chapter] = true
		return disk
	}
}

// RunLabs replays each lab on a fresh executor and prints one line per lab:
// "✓ 05-01 leo-vs-hw (7 steps)", or "✗ ..." followed by FILE:LINE, the
// command and a unified diff of the first mismatching block (or why the run
// stopped). With Rewrite, mismatching labs that ran to the end are rewritten
// in place ("↻ ...: rewrote N blocks") and labs that did not are refused.
// It returns the number of labs that failed.
//
// With Parallel > 1 that many labs run side by side, each on its own
// executor (the executors must then be safe to run concurrently; the
// sessions are started one after the other, in the list's order, so the
// NewExecutor and ExecutorFor need not be). A lab's session closes after
// its last command, while the next labs run (a cluster on disk waits for
// fsync then, the CPU free), one close at a time; a lab's line is printed
// once it has run and closed, in the list's order, so the output does not
// depend on Parallel and each line counts the close.
func RunLabs(w io.Writer, list []*Lab, newExec NewExecutor, opt RunOptions) int {
	done := make([]chan *Result, len(list))
	for i := range done {
		done[i] = make(chan *Result, 1)
	}
	go func() {
		slots := make(chan struct{}, max(opt.Parallel, 1))
		var closing sync.Mutex
		for i, l := range list {
			slots <- struct{}{}
			newX := newExec
			if opt.ExecutorFor != nil {
				if e := opt.ExecutorFor(l); e != nil {
					newX = e
				}
			}
			x, err := open(newX)
			go func() {
				r, open := runOn(l, x, err)
				<-slots
				if open != nil {
					closing.Lock()
					r.CloseErr = closeExec(open)
					closing.Unlock()
				}
				done[i] <- r
			}()
		}
	}()
	failed, rewritten := 0, 0
	for i := range list {
		f, rw := reportLab(w, <-done[i], opt)
		failed, rewritten = failed+f, rewritten+rw
	}
	if len(list) > 1 {
		fmt.Fprintf(w, "\n%s: %d passed", plural(len(list), "lab"), len(list)-failed-rewritten)
		if rewritten > 0 {
			fmt.Fprintf(w, ", %d rewritten", rewritten)
		}
		fmt.Fprintf(w, ", %d failed\n", failed)
	}
	return failed
}

// reportLab prints a lab's line (rewriting it when asked) and returns
// whether it failed and whether it was rewritten (0 or 1 each).
func reportLab(w io.Writer, r *Result, opt RunOptions) (failed, rewritten int) {
	l := r.Lab
	steps := plural(l.Steps(), "step")
	switch {
	case r.OK():
		fmt.Fprintf(w, "✓ %s (%s)\n", l.Name(), steps)
	case opt.Rewrite && r.Complete() && r.CloseErr == nil:
		if err := rewriteLab(r, opt.Write); err != nil {
			fmt.Fprintf(w, "✗ %s (%s): not rewritten\n%v\n", l.Name(), steps, err)
			return 1, 0
		}
		fmt.Fprintf(w, "↻ %s (%s): rewrote %s; review the diff before you commit it\n", l.Name(), steps, plural(r.Mismatches(), "block"))
		return 0, 1
	case opt.Rewrite:
		_, _, err := Rewrite(r)
		if err == nil {
			err = r.Err()
		}
		fmt.Fprintf(w, "✗ %s (%s)\n%v\n", l.Name(), steps, err)
		return 1, 0
	default:
		what := "stopped"
		if r.Complete() {
			what = plural(r.Mismatches(), "block") + " differ"
			if r.Mismatches() == 1 {
				what = "1 block differs"
			}
		}
		fmt.Fprintf(w, "✗ %s (%s, %s)\n%v\n", l.Name(), steps, what, r.Err())
		return 1, 0
	}
	return 0, 0
}

func rewriteLab(r *Result, write func(*Lab, []byte) error) error {
	src, _, err := Rewrite(r)
	if err != nil {
		return err
	}
	if write == nil {
		return errors.New("no way to write the lab")
	}
	return write(r.Lab, src)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
