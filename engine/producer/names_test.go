package producer

import (
	"errors"
	"maps"
	"testing"

	"github.com/minikafka-lab/minikafka/engine/kerr"
	"github.com/minikafka-lab/minikafka/engine/vfs"
	"pgregory.net/rapid"
)

// trickyName draws non-empty valid UTF-8 names rich in what JSON escapes
// and what encoders get wrong: NUL and control characters, quotes and
// backslashes, DEL, U+2028/U+2029, a BOM, U+FFFD, noncharacters, runes
// beyond the Basic Multilingual Plane (surrogate pairs in \u escapes).
func trickyName() *rapid.Generator[string] {
	special := []rune{0, 1, 0x1f, '"', '\\', '/', '\n', '\r', '\t', '\b', '\f', 0x7f, 0x80, 0xa0, 'é',
		'<', '>', '&', 0x2028, 0x2029, 0xfeff, 0xfffd, 0xfffe, 0xffff, 0x10000, 0x1f600, 0x10ffff}
	return rapid.StringOfN(rapid.OneOf(rapid.SampledFrom(special), rapid.Rune()), 1, 12, -1)
}

// TestIdentitiesRoundTripEveryName: producer-identities.json gives back
// every valid UTF-8 name byte for byte, with its identity.
func TestIdentitiesRoundTripEveryName(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := rapid.SliceOfNDistinct(trickyName(), 1, 8, func(s string) string { return s }).Draw(t, "names")
		ids := map[string]Identity{}
		for i, n := range names {
			ids[n] = Identity{PID: int64(i + 1), Epoch: rapid.Int32Range(0, 1<<31-1).Draw(t, "epoch")}
		}
		got, err := DecodeIdentities(EncodeIdentities(ids))
		if err != nil {
			t.Fatalf("%q: %v", EncodeIdentities(ids), err)
		}
		if !maps.Equal(got, ids) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, ids)
		}
	})
}

// TestIdentityNamesValidatedAtTheDoor: a name that is not valid UTF-8 is
// refused before anything is stored, so two such names can never become
// one identity after a restart; a file whose names collapse (written
// before this check) or that repeats a name or a producer id is refused
// at open instead of handing out an existing producer id.
func TestIdentityNamesValidatedAtTheDoor(t *testing.T) {
	s, err := OpenIdentityStore(vfs.NewMem(), "data")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\xff", "w\xfe", "", "\xed\xa0\x80"} {
		if _, err := s.Allocate(bad); !errors.Is(err, kerr.InvalidArgument) {
			t.Errorf("Allocate(%q): %v, want INVALID_ARGUMENT", bad, err)
		}
	}
	if s.Len() != 0 {
		t.Fatalf("refused names were stored: %d", s.Len())
	}
	for _, file := range []string{
		"{\"\xff\": [1, 0], \"\xfe\": [2, 0]}",
		`{"a": [1, 0], "a": [2, 0]}`,
		`{"a": [1, 0], "b": [1, 0]}`,
	} {
		if _, err := DecodeIdentities([]byte(file)); err == nil {
			t.Errorf("%q decoded", file)
		}
	}
}
