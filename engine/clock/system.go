package clock

import "time"

// System reads wall-clock Unix milliseconds. It is for servers only (the
// JSON/TCP adapter); it is the one place under engine/ outside the adapters
// that may read real time, and the determinism test allows exactly this file.
type System struct{}

// NowMs returns the current Unix time in milliseconds.
func (System) NowMs() int64 { return time.Now().UnixMilli() }
