package repl

import (
	"context"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kclients are the session's real Kafka clients (franz-go's kgo over TCP):
// producers kept between commands (one per bootstrap address and acks
// mode, so that their metadata can go stale as a real client's does), and
// named group members. Their results arrive on kgo's goroutines and are
// handed to the session as event lines.
type kclients struct {
	mu        sync.Mutex
	producers map[string]*kgo.Client
	members   map[string]*kmember
	// lines are results that arrived while no listener owns the cluster
	// (a client of an outside Kafka): printed with the next command.
	lines []string

	pending atomic.Int64 // operations not finished
	// counters count each live client's requests written and not yet
	// answered (a closed client's are dropped with it).
	counters map[*kgo.Client]*atomic.Int64
}

// outstanding is the number of requests the live clients wait for.
func (k *kclients) outstanding() int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := int64(0)
	for _, c := range k.counters {
		n += c.Load()
	}
	return n
}

// newClient creates a client whose requests are counted.
func (k *kclients) newClient(acks0 bool, opts ...kgo.Opt) (*kgo.Client, error) {
	counter := &atomic.Int64{}
	cl, err := kgo.NewClient(append(opts, kgo.WithHooks(requestHooks{n: counter, acks0: acks0}))...)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	k.counters[cl] = counter
	k.mu.Unlock()
	return cl, nil
}

// closeClient closes a counted client and forgets its requests.
func (k *kclients) closeClient(cl *kgo.Client) {
	cl.Close()
	k.mu.Lock()
	delete(k.counters, cl)
	k.mu.Unlock()
}

// kmember is a named group consumer.
type kmember struct {
	name    string
	group   string
	topics  []string
	client  *kgo.Client
	mu      sync.Mutex
	owned   []string // assigned partitions, sorted
	assigns int      // assignments received
	// pos is where each owned partition's next poll starts; committed
	// what was last committed there.
	pos, committed map[string]int64
}

// requestHooks counts a client's requests in flight: written and not yet
// answered. acks=0 produce requests are never answered, so they are not
// counted.
type requestHooks struct {
	n     *atomic.Int64
	acks0 bool
}

func (h requestHooks) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err == nil && !(h.acks0 && key == 0) {
		h.n.Add(1)
	}
}

func (h requestHooks) OnBrokerRead(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if !(h.acks0 && key == 0) {
		h.n.Add(-1)
	}
}

// kclientTimeout bounds every kclient operation.
const kclientTimeout = 30 * time.Second

// bootstrap returns the address kclient talks to: bootstrap= or the
// session's listener.
func (s *Session) bootstrap(a *Args) (string, error) {
	if b := a.String("bootstrap", ""); b != "" {
		if _, _, err := net.SplitHostPort(b); err != nil {
			return "", a.usage("bootstrap=%q is not HOST:PORT", b)
		}
		if s.sandbox != nil {
			var own []string
			if s.kafka != nil {
				for _, addr := range s.kafka.addrs {
					own = append(own, addr)
				}
			}
			if err := s.sandbox.bootstrap(b, own); err != nil {
				return "", err
			}
		}
		return b, nil
	}
	if s.kafka == nil {
		return "", kerr.State("no Kafka listener in this session: kafka listen starts one, or name a cluster with bootstrap=HOST:PORT")
	}
	st := s.kafkaStatus()
	return st.Brokers[0].Address, nil
}

func (s *Session) kclientState() *kclients {
	if s.kc == nil {
		s.kc = &kclients{producers: map[string]*kgo.Client{}, members: map[string]*kmember{}, counters: map[*kgo.Client]*atomic.Int64{}}
	}
	return s.kc
}

// baseOpts are the options of every kclient: fast retries and metadata
// refreshes (a learner should not wait seconds), and request counting.
func (k *kclients) baseOpts(bootstrap, clientID string) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(bootstrap),
		kgo.ClientID(clientID),
		kgo.RetryBackoffFn(func(int) time.Duration { return 50 * time.Millisecond }),
		kgo.MetadataMinAge(50 * time.Millisecond),
		kgo.RequestTimeoutOverhead(5 * time.Second),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
	}
}

// producer returns the session's producer for bootstrap and acks.
func (k *kclients) producer(bootstrap, acks string) (*kgo.Client, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := bootstrap + "|" + acks
	if cl := k.producers[key]; cl != nil {
		return cl, nil
	}
	opts := k.baseOpts(bootstrap, "kgo")
	switch strings.TrimSuffix(acks, "|manual") {
	case "all":
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProduceRequestTimeout(kclientTimeout))
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	default:
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
	}
	opts = append(opts, kgo.RecordDeliveryTimeout(kclientTimeout))
	if strings.HasSuffix(acks, "|manual") {
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	}
	k.mu.Unlock()
	cl, err := k.newClient(strings.HasPrefix(acks, "0"), opts...)
	k.mu.Lock()
	if err != nil {
		return nil, kerr.Argument("%v", err)
	}
	k.producers[key] = cl
	return cl, nil
}

// close closes every client.
func (k *kclients) close() {
	k.mu.Lock()
	var all []*kgo.Client
	for _, cl := range k.producers {
		all = append(all, cl)
	}
	for _, m := range k.members {
		all = append(all, m.client)
	}
	k.producers, k.members = map[string]*kgo.Client{}, map[string]*kmember{}
	k.mu.Unlock()
	for _, cl := range all {
		k.closeClient(cl)
	}
}

// closeKclients closes the session's clients (kafka stop, exit).
func (s *Session) closeKclients() {
	if s.kc != nil {
		s.kc.close()
	}
}

// kreport hands a result line to the session: through the listener's
// goroutine when this session listens (in order with its event lines),
// otherwise into the list the next command prints.
func (s *Session) kreport(k *kafkaListening, line string) {
	if k != nil {
		if err := k.srv.Direct(func() error {
			s.peekEvents()
			s.backlog = append(s.backlog, kafkaEvent{kind: "kclient", Line: line})
			return nil
		}); err == nil {
			return
		}
	}
	kc := s.kclientState()
	kc.mu.Lock()
	kc.lines = append(kc.lines, line)
	kc.mu.Unlock()
}

// takeKclientLines returns the result lines kept for the next command.
func (s *Session) takeKclientLines() []string {
	if s.kc == nil {
		return nil
	}
	s.kc.mu.Lock()
	defer s.kc.mu.Unlock()
	out := s.kc.lines
	s.kc.lines = nil
	return out
}

// settleKafka waits, after a command, until what real clients do has come
// to rest: every kclient operation has finished, or every request in
// flight is parked on the listener (an acks=all produce waiting for
// replicate, a long-poll fetch), and this stays true for a few polls. So
// the event lines a command prints do not depend on timing. It gives up
// after settleLimit (operations then stay pending and report later).
func (s *Session) settleKafka() {
	k, kc := s.kafka, s.kc
	if k == nil && kc == nil {
		return
	}
	deadline := time.Now().Add(settleLimit)
	if debugSettle {
		start := time.Now()
		defer func() { fmt.Fprintf(os.Stderr, "settle: %v\n", time.Since(start)) }()
	}
	calm := 0
	for time.Now().Before(deadline) {
		if s.quiet(k, kc) {
			calm++
			if calm >= 3 {
				return
			}
		} else {
			calm = 0
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var debugSettle = os.Getenv("MINIKAFKA_DEBUG_SETTLE") != ""

// settleLimit bounds settleKafka.
const settleLimit = 10 * time.Second

func (s *Session) quiet(k *kafkaListening, kc *kclients) bool {
	pending, outstanding := int64(0), int64(0)
	if kc != nil {
		pending, outstanding = kc.pending.Load(), kc.outstanding()
	}
	if k == nil {
		return pending == 0
	}
	parked := int64(k.srv.Parked())
	busy := k.inProgress.Load()
	if busy != parked || outstanding > parked {
		return false
	}
	return pending == 0 || outstanding > 0
}

// formatRecordLine renders one consumed record.
func formatRecordLine(r *kgo.Record) string {
	key := "null"
	if r.Key != nil {
		key = renderBytes(r.Key)
	}
	value := "null"
	if r.Value != nil {
		value = renderBytes(r.Value)
	}
	s := fmt.Sprintf("%s-%d@%d key=%s value=%s", r.Topic, r.Partition, r.Offset, key, value)
	if len(r.Headers) > 0 {
		hs := make([]string, len(r.Headers))
		for i, h := range r.Headers {
			hs[i] = h.Key + "=" + renderBytes(h.Value)
		}
		s += " headers=" + strings.Join(hs, ",")
	}
	return s
}

// renderBytes shows printable bytes as text and others as hex.
func renderBytes(b []byte) string {
	for _, c := range b {
		if c < 0x20 || c > 0x7e || c == ' ' {
			return fmt.Sprintf("hex:%x", b)
		}
	}
	return string(b)
}

// sortedMemberNames lists the named group members.
func (k *kclients) sortedMemberNames() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for n := range k.members {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ctxFor is a context bounded by kclientTimeout, and by Interrupt (Ctrl-C
// while the command runs).
func (s *Session) ctxFor() (context.Context, context.CancelFunc) {
	return s.interruptible(kclientTimeout)
}
