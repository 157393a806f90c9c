package engine_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/producer"
)

// trickyNames are valid UTF-8 names that JSON encoders get wrong: NUL and
// control characters, quotes, a backslash, DEL, U+2028, a BOM, U+FFFD, a
// rune beyond the Basic Multilingual Plane, and the letters of two names
// that invalid bytes would have collapsed into one (U+FFFD).
var trickyNames = []string{"\x00", "a\"b\\c", "line\u2028sep", "\ufeffbom", "\ufffd", "\U0001F600x", "\x7f\x01", "é"}

// TestNamesValidatedAtTheDoor: a producer identity, a group id or a
// transaction id that is not valid UTF-8 is refused (INVALID_ARGUMENT)
// before anything changes; with the old behaviour two such producer names
// collapsed into one identity after a restart and a new producer was
// handed an existing producer id.
func TestNamesValidatedAtTheDoor(t *testing.T) {
	f := open(t, []int32{1}, nil)
	f.topic("orders", 1, 1)
	for _, bad := range []string{"\xff", "\xfe", "w\xc3", "\xed\xa0\x80"} {
		opts := producer.DefaultOptions()
		opts.Name, opts.Idempotent, opts.Acks = bad, true, engine.AcksAll
		if _, err := f.c.NewProducer(opts); !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("idempotent producer %q: %v", bad, err)
		}
		opts.Idempotent, opts.Acks = false, engine.Acks1
		if _, err := f.c.NewProducer(opts); !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("producer %q: %v", bad, err)
		}
		if _, err := f.c.NewConsumer(engine.ConsumerOptions{GroupID: bad}); !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("consumer group %q: %v", bad, err)
		}
		if err := f.c.BeginTransaction(bad); !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("transaction %q: %v", bad, err)
		}
	}
	if n := len(f.c.Producers()) + len(f.c.Consumers()); n != 0 {
		t.Fatalf("%d refused clients exist", n)
	}
	if txns, err := f.c.ListTransactions(); err != nil || len(txns) != 0 {
		t.Fatalf("refused transactions exist: %v %v", txns, err)
	}
}

// TestTrickyNamesSurviveARestart: every accepted name comes back byte for
// byte after a clean restart: producer identities (the same producer id,
// the next epoch), committed offsets of groups, transactions and their
// staged group offsets.
func TestTrickyNamesSurviveARestart(t *testing.T) {
	f := open(t, []int32{1}, nil)
	f.topic("orders", 1, 1)
	pids := map[string]int64{}
	for _, name := range trickyNames {
		opts := producer.DefaultOptions()
		opts.Name, opts.Idempotent, opts.Acks = name, true, engine.AcksAll
		p, err := f.c.NewProducer(opts)
		if err != nil {
			t.Fatalf("producer %q: %v", name, err)
		}
		pids[name] = p.Identity().PID
		con, err := f.c.NewConsumer(engine.ConsumerOptions{GroupID: name})
		if err != nil {
			t.Fatalf("consumer %q: %v", name, err)
		}
		if err := con.Subscribe([]string{"orders"}); err != nil {
			t.Fatalf("subscribe %q: %v", name, err)
		}
		if err := con.Seek(tp("orders", 0), 0); err != nil {
			t.Fatal(err)
		}
		if err := con.Commit(); err != nil {
			t.Fatalf("commit %q: %v", name, err)
		}
		if err := f.c.BeginTransaction(name); err != nil {
			t.Fatalf("transaction %q: %v", name, err)
		}
		if err := f.c.TransactionSendOffsets(name, name, map[engine.TopicPartition]int64{tp("orders", 0): 0}); err != nil {
			t.Fatalf("send offsets %q: %v", name, err)
		}
	}
	before, err := f.c.ListTransactions()
	if err != nil {
		t.Fatal(err)
	}
	f.restart()
	after, err := f.c.ListTransactions()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range after {
		ids = append(ids, d.ID)
	}
	for _, name := range trickyNames {
		if !slices.Contains(ids, name) {
			t.Errorf("transaction %q is gone after the restart (have %q)", name, ids)
		}
		if _, ok, err := f.c.CommittedOffset(name, tp("orders", 0)); err != nil || !ok {
			t.Errorf("group %q: committed offset gone after the restart: %v", name, err)
		}
		opts := producer.DefaultOptions()
		opts.Name, opts.Idempotent, opts.Acks = name, true, engine.AcksAll
		p, err := f.c.NewProducer(opts)
		if err != nil {
			t.Fatalf("producer %q after the restart: %v", name, err)
		}
		if id := p.Identity(); id.PID != pids[name] || id.Epoch != 1 {
			t.Errorf("producer %q: identity %+v after the restart, want producer id %d epoch 1", name, id, pids[name])
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d transactions before the restart, %d after", len(before), len(after))
	}
}
