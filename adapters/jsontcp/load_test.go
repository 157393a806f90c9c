package jsontcp

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// produced is where one load record landed, as its produce answer said.
type produced struct {
	partition int32
	offset    int64
}

// runLoad opens conns connections to addr; each produces perConn keyless
// records (the partitioner chooses), pipelined in batches of 100, to an
// existing topic. It then fetches every partition back and checks that every
// record is present exactly once, where its answer said, and in its
// connection's order within each partition.
func runLoad(t *testing.T, addr, topicName string, partitions, conns, perConn int) {
	t.Helper()
	const batch = 100
	start := time.Now()
	results := make([][]produced, conns)
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for c := range conns {
		wg.Go(func() {
			got, err := produceLoad(addr, topicName, c, perConn, batch)
			results[c] = got
			if err != nil {
				errs <- fmt.Errorf("connection %d: %w", c, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	produceTime := time.Since(start)

	// Fetch everything back.
	seen := map[string]produced{}
	lastSeq := map[[2]int]int{} // (connection, partition) -> last sequence seen
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReaderSize(conn, 1<<20)
	for p := range partitions {
		offset := int64(0)
		for {
			fmt.Fprintf(conn, `{"operation":"fetch","topic":%q,"partition":%d,"offset":%d,"max_records":5000}`+"\n", topicName, p, offset)
			line, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			var resp struct {
				OK      bool
				Message string
				Records []struct {
					Offset int64
					Value  []byte `json:"value_b64"`
				}
			}
			if err := json.Unmarshal(line, &resp); err != nil || !resp.OK {
				t.Fatalf("fetch: %s %v", line, err)
			}
			if len(resp.Records) == 0 {
				break
			}
			for _, rec := range resp.Records {
				if rec.Offset != offset {
					t.Fatalf("partition %d: offset %d, want %d", p, rec.Offset, offset)
				}
				offset++
				v := string(rec.Value)
				if _, dup := seen[v]; dup {
					t.Fatalf("record %s fetched twice", v)
				}
				seen[v] = produced{int32(p), rec.Offset}
				var c, seq int
				if _, err := fmt.Sscanf(v, "c%d-%d", &c, &seq); err != nil {
					t.Fatalf("unexpected record %q", v)
				}
				key := [2]int{c, p}
				if last, ok := lastSeq[key]; ok && seq <= last {
					t.Fatalf("connection %d, partition %d: sequence %d after %d", c, p, seq, last)
				}
				lastSeq[key] = seq
			}
		}
	}
	if len(seen) != conns*perConn {
		t.Fatalf("fetched %d records, produced %d", len(seen), conns*perConn)
	}
	for c, res := range results {
		for seq, at := range res {
			if got := seen[loadValue(c, seq)]; got != at {
				t.Fatalf("record c%d-%d answered %+v but is at %+v", c, seq, at, got)
			}
		}
	}
	t.Logf("%d connections × %d records: produced in %v, verified in %v", conns, perConn, produceTime, time.Since(start)-produceTime)
}

func loadValue(c, seq int) string { return fmt.Sprintf("c%02d-%05d", c, seq) }

// produceLoad is one load connection: batches of pipelined produce requests.
func produceLoad(addr, topicName string, c, n, batch int) ([]produced, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Minute))
	r := bufio.NewReader(conn)
	out := make([]produced, 0, n)
	var req strings.Builder
	for base := 0; base < n; base += batch {
		req.Reset()
		end := min(base+batch, n)
		for seq := base; seq < end; seq++ {
			fmt.Fprintf(&req, `{"operation":"produce","topic":%q,"value_b64":%q}`+"\n", topicName, base64.StdEncoding.EncodeToString([]byte(loadValue(c, seq))))
		}
		if _, err := conn.Write([]byte(req.String())); err != nil {
			return out, err
		}
		for seq := base; seq < end; seq++ {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return out, err
			}
			var resp struct {
				OK        bool
				Partition int32
				Offset    *int64
			}
			if err := json.Unmarshal(line, &resp); err != nil || !resp.OK || resp.Offset == nil {
				return out, fmt.Errorf("produce %d: %s %v", seq, line, err)
			}
			out = append(out, produced{resp.Partition, *resp.Offset})
		}
	}
	return out, nil
}

// Load against the fake, smaller (the engine's TestClusterLoad is the full
// 50 × 2,000): it isolates the server's own concurrency from the engine.
func TestServerLoadFake(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	s := startServer(t, newFake(), Options{})
	c := dialRaw(t, s)
	if got := c.call(`{"operation":"create_topic","topic":"load","partitions":4,"replication_factor":1}`); !strings.HasPrefix(got, `{"ok":true`) {
		t.Fatal(got)
	}
	runLoad(t, s.Addr().String(), "load", 4, 50, 400)
}
