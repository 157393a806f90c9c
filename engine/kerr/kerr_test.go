package kerr

import (
	"errors"
	"fmt"
	"testing"
)

// U4: OffsetOutOfRange(requested 3, start 5, end 9).
func TestOutOfRangeMessage(t *testing.T) {
	err := OutOfRange(3, 5, 9)
	if err.Code != OffsetOutOfRange || string(err.Code) != "OFFSET_OUT_OF_RANGE" {
		t.Fatalf("code = %q", err.Code)
	}
	if err.Message != "offset 3 outside retained range [5, 9]" {
		t.Fatalf("message = %q", err.Message)
	}
	if err.Requested != 3 || err.Start != 5 || err.End != 9 {
		t.Fatalf("fields = %+v", err)
	}
}

func TestIsAndAsThroughWrapping(t *testing.T) {
	base := New(NotEnoughReplicas, "ISR size %d is below %d", 1, 2)
	wrapped := fmt.Errorf("produce events-0: %w", base)
	if !errors.Is(wrapped, NotEnoughReplicas) {
		t.Fatal("errors.Is on the code failed")
	}
	if errors.Is(wrapped, NotEnoughReplicasAfterAppend) {
		t.Fatal("errors.Is matched another code")
	}
	if CodeOf(wrapped) != NotEnoughReplicas || MessageOf(wrapped) != "ISR size 1 is below 2" {
		t.Fatalf("CodeOf/MessageOf = %q/%q", CodeOf(wrapped), MessageOf(wrapped))
	}
	if !base.Retriable() || !IsDomain(wrapped) {
		t.Fatal("NOT_ENOUGH_REPLICAS should be a retriable domain error")
	}
	if IsDomain(Argument("x")) || IsDomain(errors.New("plain")) || CodeOf(errors.New("plain")) != "" {
		t.Fatal("argument and plain errors are not domain errors")
	}
}

func TestWrapKeepsCause(t *testing.T) {
	cause := errors.New("disk failed")
	err := Wrap(StorageError, cause, "flush broker-1")
	if !errors.Is(err, cause) || !errors.Is(err, StorageError) {
		t.Fatal("Wrap lost the cause or the code")
	}
	if err.Error() != "STORAGE_ERROR: flush broker-1: disk failed" {
		t.Fatalf("Error() = %q", err.Error())
	}
}

func TestCatalogueComplete(t *testing.T) {
	seen := map[Code]bool{}
	for _, i := range Codes() {
		if seen[i.Code] {
			t.Fatalf("duplicate code %s", i.Code)
		}
		seen[i.Code] = true
		if i.Description == "" {
			t.Fatalf("%s has no description", i.Code)
		}
		if _, ok := Lookup(i.Code); !ok {
			t.Fatalf("Lookup(%s) failed", i.Code)
		}
	}
	if OutOfOrder(3, 0).Message != "expected sequence 3, got 0" {
		t.Fatal("OutOfOrder message")
	}
}
