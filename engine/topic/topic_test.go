package topic

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// M3: invalid names are argument errors mentioning "topic"; 249 characters
// are fine and 250 are not.
func TestValidateName(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "has/slash", "white space", strings.Repeat("a", 250), "é"} {
		err := ValidateName(bad)
		if !errors.Is(err, kerr.InvalidArgument) || !strings.Contains(err.Error(), "topic") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
	for _, good := range []string{"orders", "a.b_c-d", "...x", strings.Repeat("a", 249)} {
		if err := ValidateName(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}

// M1: partitions sort by topic, then partition.
func TestSortAndString(t *testing.T) {
	ps := []Partition{{"b", 0}, {"a", 1}, {"a", 0}, {"a", 10}, {"a", 2}}
	Sort(ps)
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
	}
	if strings.Join(got, " ") != "a-0 a-1 a-2 a-10 b-0" {
		t.Fatalf("sorted: %v", got)
	}
	if !(Partition{"a", 1}).Less(Partition{"b", 0}) {
		t.Fatal("Less")
	}
	seen := map[Partition]bool{{"a", 0}: true}
	if !seen[Partition{"a", 0}] {
		t.Fatal("not usable as a map key")
	}
}

func TestParse(t *testing.T) {
	good := map[string]Partition{"orders-0": {"orders", 0}, "my-topic-12": {"my-topic", 12}, "a--1": {"a-", 1}}
	for s, want := range good {
		got, err := Parse(s)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v", s, got, err)
		}
		if got.String() != s {
			t.Errorf("round trip %q -> %q", s, got.String())
		}
	}
	for _, s := range []string{"orders", "orders-", "-1", "orders-x", "orders-+1", "orders--1x", "bad topic-0", "orders-99999999999"} {
		if _, err := Parse(s); !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("Parse(%q) err = %v", s, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"orders-0", "a-b-3", "-", "x-", "é-1", "a--1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			return
		}
		if ValidateName(p.Topic) != nil || p.Partition < 0 {
			t.Fatalf("Parse(%q) accepted %+v", s, p)
		}
		if q, err := Parse(p.String()); err != nil || q != p {
			t.Fatalf("round trip of %q: %v %v", s, q, err)
		}
	})
}

// ID is a Kafka Uuid string: 22 base64url characters (16 bytes, no
// padding), a version-4 UUID, never starting with '-' (Uuid.randomUuid),
// the same for the same name and different for different names.
func TestIDIsAKafkaUuidString(t *testing.T) {
	seen := map[string]string{}
	for i := range 500 {
		name := "topic-" + strconv.Itoa(i)
		id := ID(name)
		raw, err := base64.RawURLEncoding.DecodeString(id)
		if err != nil || len(id) != 22 || len(raw) != 16 || raw[6]>>4 != 4 || raw[8]>>6 != 2 || strings.HasPrefix(id, "-") {
			t.Fatalf("ID(%q) = %q (%v)", name, id, err)
		}
		if other, dup := seen[id]; dup {
			t.Fatalf("%q and %q share %s", name, other, id)
		}
		seen[id] = name
		if ID(name) != id {
			t.Fatalf("ID(%q) changed", name)
		}
	}
}
