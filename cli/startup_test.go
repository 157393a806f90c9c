//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// module is the import path prefix of this repository's packages.
const module = "github.com/minikafka-lab/minikafka/"

// Bounds on what this repository's packages allocate while the program
// starts (package-level variables and init functions), for any command,
// `minikafka version` included. They are bytes, not time, so that a loaded
// machine cannot fail them; at the time of writing the repl package
// allocates ~22 KB and all of them together ~50 KB in this test binary
// (40 KB in the real one), against 190 KB and 350 KB before the regular
// expressions and help texts were made lazy.
const (
	maxInitBytesPerPackage = 32 << 10
	maxInitBytesInAll      = 96 << 10
)

// TestStartupAllocatesLittle runs `minikafka version` (this test binary
// running Main) with GODEBUG=inittrace=1 and bounds the bytes each of the
// repository's packages allocates before main: a regular expression
// compiled, a table or a help text built at start-up shows here. Build
// such things at first use (internal/lazyre, sync.OnceValue).
func TestStartupAllocatesLittle(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "version")
	cmd.Env = append(os.Environ(), cliHelperEnv+"=1", "GODEBUG="+strings.Trim(os.Getenv("GODEBUG")+",inittrace=1", ","))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("version: %v\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "minikafka ") {
		t.Fatalf("version printed %q", stdout.String())
	}
	inits, err := parseInitTrace(stderr.String())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := inits[module+"repl"]; !ok {
		t.Fatalf("no init trace line for %srepl in:\n%s", module, stderr.String())
	}
	var names []string
	total := 0
	for name, bytes := range inits {
		if strings.HasPrefix(name, module) {
			names = append(names, name)
			total += bytes
		}
	}
	sort.Slice(names, func(i, j int) bool { return inits[names[i]] > inits[names[j]] })
	var table strings.Builder
	for _, name := range names {
		fmt.Fprintf(&table, "  %8d B  %s\n", inits[name], name)
	}
	for _, name := range names {
		if inits[name] > maxInitBytesPerPackage {
			t.Errorf("%s allocates %d bytes at start-up (bound %d): build its tables and regular expressions at first use", name, inits[name], maxInitBytesPerPackage)
		}
	}
	if total > maxInitBytesInAll {
		t.Errorf("the repository's packages allocate %d bytes at start-up (bound %d)", total, maxInitBytesInAll)
	}
	if t.Failed() {
		t.Logf("bytes allocated by package initialisation:\n%s", table.String())
	}
}

// parseInitTrace reads GODEBUG=inittrace=1 lines ("init PKG @T ms, C ms
// clock, B bytes, N allocs") into bytes allocated per package.
func parseInitTrace(trace string) (map[string]int, error) {
	out := make(map[string]int)
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[0] != "init" || fields[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(fields[7])
		if err != nil {
			return nil, fmt.Errorf("init trace line %q: %w", sc.Text(), err)
		}
		out[fields[1]] += n
	}
	return out, sc.Err()
}
