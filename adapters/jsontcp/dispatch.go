package jsontcp

import (
	"errors"
	"fmt"

	"github.com/minikafka-lab/minikafka/engine/kerr"
)

// outcome is what executing one request produced: a response line, or an
// acknowledgement still pending (acks=all waiting for followers).
type outcome struct {
	line     []byte
	pending  PendingAck
	produced ProduceResult // the partition of a pending produce
}

// Dispatch serves one request line against b, synchronously, and returns the
// response line, newline included. It is chapter 10's "dispatch without a
// socket": the same decoding, translation and error mapping as the server,
// with no framing. The caller must own b (no concurrent use).
//
// Nothing replicates during a direct dispatch, so a produce whose acks=all
// acknowledgement is still pending is answered REQUEST_TIMED_OUT at once; the
// record stays in the leader log and is committed when replication runs.
func Dispatch(b Backend, line []byte) []byte {
	r, err := decodeRequest(line)
	if err != nil {
		return errorResponse(err)
	}
	out := execute(b, r)
	if out.pending == nil {
		return out.line
	}
	if resp, done := settle(out.pending); done {
		return resp
	}
	return errorLine(kerr.RequestTimedOut, "acks=all is still waiting for the in-sync replicas (nothing replicates during a direct dispatch); the record is in the leader log")
}

// execute runs a decoded request on the backend. A panic in the backend is
// recovered and answered INTERNAL.
func execute(b Backend, r *request) (out outcome) {
	defer func() {
		if p := recover(); p != nil {
			out = outcome{line: errorLine(kerr.Internal, fmt.Sprintf("panic during %s: %v", r.op, p))}
		}
	}()
	switch r.op {
	case opCreateTopic:
		if err := b.CreateTopic(r.topic, r.partitions, r.replicationFactor); err != nil {
			return outcome{line: errorResponse(err)}
		}
		return outcome{line: createTopicLine(r.topic)}
	case opMetadata:
		m, err := b.Metadata(r.topic)
		if err != nil {
			return outcome{line: errorResponse(err)}
		}
		return outcome{line: metadataLine(m)}
	case opProduce:
		res, pending, err := b.Produce(r.produce)
		if err != nil {
			return outcome{line: errorResponse(err)}
		}
		if pending != nil {
			return outcome{pending: pending, produced: res}
		}
		return outcome{line: produceLine(res)}
	case opFetch:
		recs, err := b.Fetch(r.fetch)
		if err != nil {
			return outcome{line: errorResponse(err)}
		}
		return outcome{line: fetchLine(recs)}
	case opJoinGroup:
		j, err := b.JoinGroup(r.groupID, r.memberID, r.topics)
		if err != nil {
			return outcome{line: errorResponse(err)}
		}
		return outcome{line: joinGroupLine(j)}
	case opHeartbeat:
		if err := b.Heartbeat(r.groupID, r.memberID, r.generation); err != nil {
			return outcome{line: errorResponse(err)}
		}
		return outcome{line: okLine}
	case opCommitOffsets:
		if err := b.CommitOffsets(r.groupID, r.memberID, r.generation, r.offsets); err != nil {
			return outcome{line: errorResponse(err)}
		}
		return outcome{line: okLine}
	}
	// decodeRequest only returns known operations.
	return outcome{line: errorLine(kerr.Internal, "no handler for operation "+quote(r.op))}
}

// settle polls a pending acknowledgement; done reports whether it is settled,
// and resp is then the response line. A panic is answered INTERNAL.
func settle(p PendingAck) (resp []byte, done bool) {
	defer func() {
		if v := recover(); v != nil {
			resp, done = errorLine(kerr.Internal, fmt.Sprintf("panic while waiting for an acknowledgement: %v", v)), true
		}
	}()
	res, done, err := p.Poll()
	switch {
	case !done:
		return nil, false
	case err != nil:
		return errorResponse(err), true
	default:
		return produceLine(res), true
	}
}

// errorResponse maps an error to its response line (§14.3, decision 24):
// domain codes are kept, argument errors become INVALID_REQUEST, state errors
// ILLEGAL_STATE, and anything without a code INTERNAL.
func errorResponse(err error) []byte {
	code, message := errorCode(err)
	return errorLine(code, message)
}

func errorCode(err error) (kerr.Code, string) {
	var e *kerr.Error
	if !errors.As(err, &e) {
		return kerr.Internal, err.Error()
	}
	message := kerr.MessageOf(err)
	if e.Code == kerr.InvalidArgument {
		return kerr.InvalidRequest, message
	}
	return e.Code, message
}
