package repl

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestSettleGivesUpOnAnAcks0ProduceNeverRead: an acks=0 produce counted as
// written to the listener and never served (written into a connection the
// listener had closed) holds settleKafka for noAnswerGrace only, then is
// written off, so later commands do not wait for it.
func TestSettleGivesUpOnAnAcks0ProduceNeverRead(t *testing.T) {
	s := newTestSession(t, Options{})
	for _, line := range []string{"cluster open brokers=1", "kafka listen"} {
		if err := s.Exec(&bytes.Buffer{}, line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	s.kafka.sentNoAnswer.Add(1) // a produce the listener will never read
	start := time.Now()
	s.settleKafka()
	if took := time.Since(start); took < noAnswerGrace || took >= settleLimit {
		t.Fatalf("settleKafka took %v: want the grace (%v) and less than the limit (%v)", took, noAnswerGrace, settleLimit)
	}
	if n := s.kafka.unreadNoAnswer(); n != 0 {
		t.Fatalf("after the grace %d produces are still awaited", n)
	}
	var out bytes.Buffer
	start = time.Now()
	if err := s.Exec(&out, "kafka status"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took >= noAnswerGrace {
		t.Errorf("the next command waited %v for the written-off produce", took)
	}
}

// TestAcks0ProduceEventPrintsWithItsCommand: the listener's line for an
// acks=0 produce (nothing answers it, so only the listener's count of
// served requests tells settleKafka it was read) prints with the command
// that sent it, every time.
func TestAcks0ProduceEventPrintsWithItsCommand(t *testing.T) {
	s := newTestSession(t, Options{})
	for _, line := range []string{"cluster open brokers=1", "topic create t partitions=1 rf=1", "kafka listen"} {
		if err := s.Exec(&bytes.Buffer{}, line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	for i := range 20 {
		var out bytes.Buffer
		if err := s.Exec(&out, "kclient produce t value=v acks=0"); err != nil {
			t.Fatal(err)
		}
		want := "kafka: kgo → broker 1: Produce t-0 (1 record): appended (acks=0: no answer)"
		if !strings.Contains(out.String(), want) {
			t.Fatalf("produce %d printed:\n%s\nwant a line %q", i+1, out.String(), want)
		}
	}
	if sent, served := s.kafka.sentNoAnswer.Load(), s.kafka.servedNoAnswer.Load(); sent != 20 || served != 20 {
		t.Errorf("acks=0 produces written %d, served %d: want 20 and 20", sent, served)
	}
}

func TestRetryBackoffDoublesFromFirstToMax(t *testing.T) {
	want := []time.Duration{5, 10, 20, 40, 50, 50, 50}
	for i, w := range want {
		if got := retryBackoff(i + 1); got != w*time.Millisecond {
			t.Errorf("retryBackoff(%d) = %v, want %v", i+1, got, w*time.Millisecond)
		}
	}
	if got := retryBackoff(1 << 20); got != retryBackoffMax {
		t.Errorf("retryBackoff(a large count) = %v, want %v", got, retryBackoffMax)
	}
}
