package cli

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// shutdownSignals end `repl` and `serve` gracefully: the cluster is closed
// (producers flushed, logs synced, clean-shutdown markers written) before
// the process exits. SIGPIPE is among them so that a reader that goes away
// (`minikafka repl < s.mk | head`) ends the session cleanly instead of
// killing the process with unsynced data.
var shutdownSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE}

// checkLoopback refuses a listen address that other machines could reach
// unless allowRemote: the adapters have no authentication or TLS. Loopback
// is 127.0.0.0/8, ::1 and "localhost"; an empty host (":9093") means every
// interface.
func checkLoopback(flag, addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q is not HOST:PORT such as 127.0.0.1:9093", flag, addr)
	}
	if allowRemote || isLoopback(host) { // serve_kafka.go: localhost, 127.0.0.0/8, ::1
		return nil
	}
	return fmt.Errorf("%s %q is not a loopback address: the listener has no authentication or TLS (--allow-remote to serve it anyway)", flag, addr)
}
