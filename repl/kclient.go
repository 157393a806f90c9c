package repl

import (
	"context"
	"fmt"
	"net"
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
	// wake is poked when a request is written or answered and when an
	// operation finishes (the session's settle signal).
	wake settleSignal
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

// newClient creates a client whose requests are counted. sent0, when not
// nil, counts the acks=0 produces it writes (to this session's listener).
func (k *kclients) newClient(acks0 bool, sent0 *atomic.Int64, opts ...kgo.Opt) (*kgo.Client, error) {
	counter := &atomic.Int64{}
	hooks := requestHooks{n: counter, acks0: acks0, sent0: sent0, wake: k.wake}
	cl, err := kgo.NewClient(append(opts, kgo.WithHooks(hooks))...)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	k.counters[cl] = counter
	k.mu.Unlock()
	return cl, nil
}

// finished ends an operation counted in pending.
func (k *kclients) finished() {
	k.pending.Add(-1)
	k.wake.poke()
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
	// assignedGen is the generation of the last assignment received.
	assignedGen int32
	// pos is where each owned partition's next poll starts; committed
	// what was last committed there.
	pos, committed map[string]int64
}

// requestHooks counts a client's requests in flight: written and not yet
// answered. acks=0 produce requests are never answered, so they are
// counted apart (sent0), to be matched with the listener's count of those
// it served. Every write and read wakes settleKafka.
type requestHooks struct {
	n     *atomic.Int64
	acks0 bool
	sent0 *atomic.Int64
	wake  settleSignal
}

func (h requestHooks) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	switch {
	case err != nil:
	case h.acks0 && key == 0:
		if h.sent0 != nil {
			h.sent0.Add(1)
		}
	default:
		h.n.Add(1)
	}
	h.wake.poke()
}

func (h requestHooks) OnBrokerRead(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if !(h.acks0 && key == 0) {
		h.n.Add(-1)
	}
	h.wake.poke()
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
		s.kc = &kclients{producers: map[string]*kgo.Client{}, members: map[string]*kmember{},
			counters: map[*kgo.Client]*atomic.Int64{}, wake: s.settleWake()}
	}
	return s.kc
}

// baseOpts are the options of every kclient: fast retries and metadata
// refreshes (a learner should not wait seconds), and request counting.
func (k *kclients) baseOpts(bootstrap, clientID string) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(bootstrap),
		kgo.ClientID(clientID),
		kgo.RetryBackoffFn(retryBackoff),
		kgo.MetadataMinAge(10 * time.Millisecond), // kgo's least
		kgo.RequestTimeoutOverhead(5 * time.Second),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
	}
}

// retryBackoff is how long a kclient waits before its retry number tries
// (from 1): 5 ms, doubling up to 50 ms. A retry on the teaching cluster
// waits for nothing but the client itself (the listener answers from the
// engine's state at once), so the first comes fast; the doubling keeps a
// client that cannot get through (a partition without a leader) from
// asking hundreds of times a second.
func retryBackoff(tries int) time.Duration {
	return min(retryBackoffFirst<<min(max(tries-1, 0), 4), retryBackoffMax)
}

const (
	retryBackoffFirst = 5 * time.Millisecond
	retryBackoffMax   = 50 * time.Millisecond
)

// producer returns the session's producer for bootstrap and acks; sent0
// counts its acks=0 produces (nil: bootstrap is not this session's
// listener).
func (k *kclients) producer(bootstrap, acks string, sent0 *atomic.Int64) (*kgo.Client, error) {
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
	// No linger: each produce command sends one record, and the settle
	// step waits for it to be sent, so lingering only delays it.
	opts = append(opts, kgo.RecordDeliveryTimeout(kclientTimeout), kgo.ProducerLinger(0))
	if strings.HasSuffix(acks, "|manual") {
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	}
	k.mu.Unlock()
	cl, err := k.newClient(strings.HasPrefix(acks, "0"), sent0, opts...)
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
