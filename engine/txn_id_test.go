package engine_test

import (
	"strings"
	"testing"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// Every transaction operation given an empty id says the id is missing (an
// argument error), not "transaction  has not begun", and changes nothing:
// no record is appended and no transaction appears.
func TestEmptyTransactionIDIsAnArgumentError(t *testing.T) {
	t.Parallel()
	f := open(t, []int32{1}, nil)
	f.topic("out", 1, 1)
	f.begin("tx")
	_, sendErr := f.c.TransactionSend("", "out", 0, rec("v"))
	_, commitErr := f.c.CommitTransaction("")
	_, abortErr := f.c.AbortTransaction("")
	_, describeErr := f.c.DescribeTransaction("")
	for name, err := range map[string]error{
		"begin":        f.c.BeginTransaction(""),
		"send":         sendErr,
		"send offsets": f.c.TransactionSendOffsets("", "g", map[engine.TopicPartition]int64{tp("out", 0): 1}),
		"commit":       commitErr,
		"abort":        abortErr,
		"describe":     describeErr,
	} {
		wantCode(t, err, kerr.InvalidArgument, "transaction id must be a non-empty UTF-8 string")
		if strings.Contains(err.Error(), "  ") {
			t.Fatalf("%s: %q has a double space", name, err)
		}
	}
	if st := f.state(tp("out", 0)); st.LEO != 0 {
		t.Fatalf("a refused send appended: LEO %d", st.LEO)
	}
	list, err := f.c.ListTransactions()
	if err != nil || len(list) != 1 || list[0].ID != "tx" {
		t.Fatalf("transactions %+v %v, want only tx", list, err)
	}
}
