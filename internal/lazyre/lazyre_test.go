package lazyre

import (
	"sync"
	"testing"
)

func TestCompilesOnceAtFirstUse(t *testing.T) {
	re := New(`^a+b$`)
	first := re()
	if !first.MatchString("aab") || first.MatchString("ba") {
		t.Fatalf("pattern %q matches wrongly", first)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := re(); got != first {
				t.Errorf("second call returned another *Regexp")
			}
		})
	}
	wg.Wait()
}

func TestBadPatternPanicsAtFirstUseNotAtNew(t *testing.T) {
	re := New(`(`) // must not panic here
	defer func() {
		if recover() == nil {
			t.Fatal("a pattern that does not compile did not panic at its first use")
		}
	}()
	re()
}
