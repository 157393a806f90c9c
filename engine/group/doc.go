// Package group is MiniKafka's consumer-group coordinator (§11 of the spec):
// the round-robin assignor, the group state machine (join, leave, heartbeat,
// session expiry, generations, fenced commits) and the offset store that
// persists committed offsets in offsets.json.
//
// The package knows nothing about logs or fetches. It reads time through a
// clock.Clock and the cluster's topics through a Topics function, so package
// engine (which owns the Consumer object) builds on it without a cycle.
//
// # Rebalancing
//
// A rebalance is synchronous: every join, leave or expiry bumps the generation
// and recomputes the whole assignment at once. There is no revoke barrier
// (§11.4): a consumer keeps its old local assignment until it asks for the new
// one, and any commit it makes with the old generation is refused with
// ILLEGAL_GENERATION.
package group
