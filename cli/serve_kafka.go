package cli

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/adapters/kafkawire"
	"github.com/minikafka-lab/minikafka/engine"
)

// KafkaListeners spreads a cluster's brokers over listen addresses: each
// broker (in id order) on addr's host, at addr's port plus its index, or at
// the given ports. Port 0 gives every broker a free port. A host that is
// not loopback is refused unless allowRemote.
func KafkaListeners(brokers []int32, addr, ports string, allowRemote bool) ([]kafkawire.Listener, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--kafka %q is not HOST:PORT", addr)
	}
	if !allowRemote && !isLoopback(host) {
		return nil, fmt.Errorf("--kafka %q is not a loopback address: the listener has no authentication or TLS (--allow-remote to serve it anyway)", addr)
	}
	base, err := strconv.Atoi(portText)
	if err != nil || base < 0 || base > 65535 {
		return nil, fmt.Errorf("--kafka %q: the port must be 0 to 65535", addr)
	}
	ids := slices.Clone(brokers)
	slices.Sort(ids)
	var explicit []int
	if ports != "" {
		for _, p := range strings.Split(ports, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || n < 0 || n > 65535 {
				return nil, fmt.Errorf("--kafka-ports: %q is not a port", p)
			}
			explicit = append(explicit, n)
		}
		if len(explicit) != len(ids) {
			return nil, fmt.Errorf("--kafka-ports names %d ports for %d brokers", len(explicit), len(ids))
		}
	}
	out := make([]kafkawire.Listener, len(ids))
	for i, id := range ids {
		port := base
		switch {
		case explicit != nil:
			port = explicit[i]
		case base != 0:
			port = base + i
		}
		if port > 65535 {
			return nil, fmt.Errorf("--kafka %q: broker %d would get port %d", addr, id, port)
		}
		out[i] = kafkawire.Listener{Broker: id, Addr: net.JoinHostPort(host, strconv.Itoa(port))}
	}
	return out, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveKafka runs the Kafka wire listener on cluster until ctx ends, with
// the real clock and a replication pump every --replicate-every.
func serveKafka(ctx context.Context, f *serveFlags, cluster *engine.Cluster, dataDir string, stdout, stderr *lockedWriter) int {
	listeners, err := KafkaListeners(f.brokers, f.kafka, f.kafkaPorts, f.allowRemote)
	if err != nil {
		_ = cluster.Close()
		stderr.printf("minikafka serve: %v\n", err)
		return 2
	}
	srv, err := kafkawire.Listen(kafkawire.Options{
		Listeners: listeners,
		Cluster:   func() *engine.Cluster { return cluster },
		PumpEvery: f.replicateEvery,
		Pump: func(c *engine.Cluster) error {
			_, err := c.Replicate(nil, engine.AllFollowers)
			c.RunDue()
			return err
		},
		Logf: func(format string, args ...any) { stderr.printf("minikafka serve: "+format+"\n", args...) },
	})
	if err != nil {
		_ = cluster.Close()
		stderr.printf("minikafka serve: %v\n", err)
		return 1
	}
	addrs := srv.Addrs()
	for _, l := range listeners {
		stdout.printf("broker %d listening on %s (Kafka protocol)\n", l.Broker, addrs[l.Broker])
	}
	stdout.printf("data dir %s, brokers %s; try: kcat -b %s -L; Ctrl-C stops\n", dataDir, joinIDs(f.brokers), srv.Bootstrap())
	if f.allowRemote {
		stderr.printf("minikafka serve: warning: --allow-remote: the listener has no authentication or TLS\n")
	}
	<-ctx.Done()
	stdout.printf("shutting down\n")
	status := 0
	_ = srv.Close()
	if err := cluster.Close(); err != nil {
		stderr.printf("minikafka serve: closing the cluster: %v\n", err)
		status = 1
	}
	if status == 0 {
		stdout.printf("cluster closed cleanly\n")
	}
	return status
}
