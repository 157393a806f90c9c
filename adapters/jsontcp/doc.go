// Package jsontcp is MiniKafka's newline-JSON/TCP adapter (chapter 10): a
// small request/response protocol over a loopback socket that translates each
// request into one call on the same engine the REPL and the labs use. It owns
// no state of its own; offsets, fencing and visibility stay in the engine.
//
// # Framing (spec §14.2)
//
// A request is the bytes up to and including '\n' and must be one JSON object.
// A final line without a newline before EOF is still served; "\r\n" is
// tolerated (the '\r' is JSON whitespace). Several requests may share one TCP
// write and one request may span several; responses come back in request
// order, one compact JSON object per line. A line whose length, newline
// included, exceeds MaxFrameBytes is answered
//
//	{"ok":false,"code":"FRAME_TOO_LARGE","message":""}
//
// and the connection is closed. The server never buffers more than
// MaxFrameBytes+1 bytes of one connection: when that many bytes arrive without
// a newline the same answer is sent and the connection closed. Across
// connections, lines longer than 64 KiB share a budget of 32 MiB: a
// connection that needs more while the budget is in use stops being read
// (TCP pushes back) until another long line is served or its connection
// closes, so many clients sending long lines at once cannot exhaust memory. An empty line is
// INVALID_REQUEST and the connection stays open.
//
// # Requests (decision 24: strict)
//
// The operations are create_topic, metadata, produce, fetch, join_group,
// heartbeat and commit_offsets (spec §14.4). Decoding is strict: the line must
// be valid UTF-8 and one JSON object; keys may not repeat; every field an
// operation does not define is rejected, so a typo such as "value" for
// "value_b64" is an error rather than a silent null; integers must be JSON
// integers (no strings, fractions or exponents) within the field's range;
// strings must be JSON strings; topics must be an array of strings. A JSON null
// in an optional field means "absent". Bytes travel as strict, padded standard
// base64 (line breaks inside the text are rejected); null or absent means null
// bytes and "" means empty bytes, so a tombstone and an empty value stay
// distinct. acks is "0", "1", "all" or "-1" (the same as "all"); the JSON
// integers 0, 1 and -1 are accepted too, as Kafka clients spell acks that way.
// isolation is "read_uncommitted" (default) or "read_committed".
//
// produce without "partition" lets the cluster's partitioner choose, like any
// producer (keyed records hash, keyless ones are sticky); with "partition" it is
// explicit. acks defaults to "1". fetch's max_records defaults to 100; 0
// returns no records and a negative value is INVALID_REQUEST (decision 1). The
// fetch response has the spec's shape: offset, key_b64 and value_b64 per record.
//
// # Errors
//
// A domain error keeps its code: {"ok":false,"code":C,"message":M}. An argument
// error (kerr.InvalidArgument) and every decoding failure answer
// INVALID_REQUEST. A state error (kerr.IllegalState, such as "cluster is
// closed") answers ILLEGAL_STATE with its message, and any other failure, a
// plain Go error or a panic recovered during dispatch, answers INTERNAL: the
// connection is never dropped without an answer (decision 24). An acks=all
// produce that is not acknowledged within RequestTimeout answers
// REQUEST_TIMED_OUT; the record may still be in the leader log and become
// committed later, exactly as with a Kafka request timeout.
//
// # Concurrency
//
// The engine is single-threaded, so one goroutine owns the backend: every
// request, every replication pump and every Server.Direct call runs on it, in
// the order it receives them. Connection goroutines only frame, decode and
// write; each connection is served sequentially, and many connections run at
// once. Close stops accepting, closes every connection and returns after every
// goroutine the server started has finished.
package jsontcp
