package repl

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// sandboxNote is what a refusal in a sandboxed session adds: why, and how
// to run trusted material without the sandbox.
const sandboxNote = "labs and exercises from --dir run sandboxed; --trust runs them with your rights"

// sandbox confines a session that runs material it did not write (labs,
// exercises and chapters loaded with --dir): data directories only under a
// temporary root the session owns, remote only to this session's own
// server or Kafka listener, serve and kafka listen only on a port the
// system chooses.
type sandbox struct {
	root string // removed on Close
}

// newSandbox makes the temporary root.
func newSandbox() (*sandbox, error) {
	root, err := os.MkdirTemp("", "minikafka-sandbox-")
	if err != nil {
		return nil, kerr.Wrap(kerr.StorageError, err, "create the sandbox directory")
	}
	return &sandbox{root: root}, nil
}

// dataDir maps a `cluster open dir=` path into the root: a relative path
// that stays inside it. An absolute path, or one that climbs out with
// "..", is refused.
func (sb *sandbox) dataDir(dir string) (string, error) {
	if filepath.IsAbs(dir) {
		return "", kerr.Argument("dir=%s: an absolute path is outside the sandbox (%s)", dir, sandboxNote)
	}
	joined := filepath.Join(sb.root, dir)
	rel, err := filepath.Rel(sb.root, joined)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", kerr.Argument("dir=%s is outside the sandbox (%s)", dir, sandboxNote)
	}
	return joined, nil
}

// remote checks that addr is this session's own server.
func (sb *sandbox) remote(addr, own string) error {
	if own != "" && addr == own {
		return nil
	}
	return kerr.Argument("remote %s: a sandboxed session talks only to its own server (serve start, then remote without an address) (%s)", addr, sandboxNote)
}

// bootstrap checks that a kclient's bootstrap= names one of this session's
// own Kafka listeners.
func (sb *sandbox) bootstrap(addr string, own []string) error {
	if slices.Contains(own, addr) {
		return nil
	}
	return kerr.Argument("bootstrap=%s: a sandboxed session talks only to its own Kafka listener (kafka listen, then kclient without bootstrap=) (%s)", addr, sandboxNote)
}

// listen checks that a serve start or kafka listen address lets the
// system choose the port.
func (sb *sandbox) listen(addr string) error {
	if _, port, err := net.SplitHostPort(addr); err == nil && port == "0" {
		return nil
	}
	return kerr.Argument("listen=%s: a sandboxed session serves only on a port the system chooses, such as 127.0.0.1:0 (%s)", addr, sandboxNote)
}

func (sb *sandbox) close() error {
	return os.RemoveAll(sb.root)
}
