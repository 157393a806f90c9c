package repl

// Effect is what a command does to the session's state. Undo and fork
// replay the commands that change state, record writes the ones that
// change or inspect it, and lab step warns that the learner left the
// script only after a command that changed it.
type Effect int

// The effects. The zero value is "not declared", which the session
// treats as EffectOutside: a command nobody classified is never replayed
// as if it were harmless (TestEveryCommandDeclaresAnEffect keeps the
// table complete).
const (
	EffectUnknown Effect = iota
	// EffectChange changes the cluster or the session's named clients;
	// replaying it on the same state gives the same state.
	EffectChange
	// EffectRead only inspects: it changes nothing, so replay skips it.
	EffectRead
	// EffectSession is about the session or the course, not the cluster
	// (help, history, undo, read, lab, ...): never replayed or recorded.
	EffectSession
	// EffectOutside reaches outside the session (serve start, remote,
	// cluster open dir=): what happens after it depends on things the
	// timeline does not hold, so undo and fork cannot go back across it.
	EffectOutside
)

// String is the effect's name, for messages and JSON.
func (e Effect) String() string {
	switch e {
	case EffectChange:
		return "change"
	case EffectRead:
		return "read"
	case EffectSession:
		return "session"
	case EffectOutside:
		return "outside"
	}
	return "unknown"
}

// commandEffects declares the effect of every command by its full name.
// One table, so that adding a command means adding one line here.
var commandEffects = map[string]Effect{
	"cluster open":    EffectChange, // dir= reaches outside: see effectOf
	"cluster close":   EffectChange,
	"cluster crash":   EffectChange,
	"cluster restart": EffectChange,
	"config show":     EffectRead,
	"config set":      EffectChange,
	"clock":           EffectRead,
	"clock advance":   EffectChange,

	"topic create":   EffectChange,
	"topic list":     EffectRead,
	"topic describe": EffectRead,
	"produce":        EffectChange,
	"fetch":          EffectRead,

	"producer create": EffectChange,
	"producer send":   EffectChange,
	"producer flush":  EffectChange,
	"producer retry":  EffectChange,
	"producer list":   EffectRead,

	"replicate":      EffectChange,
	"promote":        EffectChange,
	"explore":        EffectRead,
	"rejoin":         EffectChange,
	"broker list":    EffectRead,
	"broker crash":   EffectChange,
	"broker restart": EffectChange,

	"log segments": EffectRead,
	"log dump":     EffectRead,
	"log index":    EffectRead,
	"corrupt":      EffectChange,
	"retention":    EffectChange,
	"compact":      EffectChange,

	"consumer create":     EffectChange,
	"consumer assign":     EffectChange,
	"consumer subscribe":  EffectChange,
	"consumer assignment": EffectRead,
	"consumer refresh":    EffectChange,
	"consumer poll":       EffectChange,
	"consumer seek":       EffectChange,
	"consumer position":   EffectRead,
	"consumer commit":     EffectChange,
	"consumer committed":  EffectRead,
	"consumer lag":        EffectRead,
	"consumer heartbeat":  EffectChange,
	"consumer close":      EffectChange,
	"consumer list":       EffectRead,
	"group list":          EffectRead,
	"group describe":      EffectRead,

	"txn begin":   EffectChange,
	"txn send":    EffectChange,
	"txn offsets": EffectChange,
	"txn commit":  EffectChange,
	"txn abort":   EffectChange,
	"txn list":    EffectRead,

	// Serving lets clients outside the session change the cluster, and
	// remote talks to a server (this session's or another process's).
	"serve start":  EffectOutside,
	"serve stop":   EffectSession,
	"serve status": EffectSession,
	"remote":       EffectOutside,
	// dispatch serves one request in process: deterministic, replayable.
	"dispatch": EffectChange,
	// The Kafka listener lets real clients change the cluster, and kclient
	// is such a client, over TCP.
	"kafka listen":    EffectOutside,
	"kafka stop":      EffectSession,
	"kafka status":    EffectSession,
	"kclient produce": EffectOutside,
	"kclient consume": EffectOutside,
	"kclient join":    EffectOutside,
	"kclient poll":    EffectOutside,
	"kclient commit":  EffectOutside,
	"kclient leave":   EffectOutside,
	"kclient list":    EffectSession,

	"offsets": EffectRead,
	"show":    EffectRead,
	"check":   EffectRead,

	"help":    EffectSession,
	"history": EffectSession,
	"exit":    EffectSession,
	"quit":    EffectSession,

	"undo":          EffectSession,
	"fork":          EffectSession,
	"fork switch":   EffectSession,
	"fork list":     EffectSession,
	"record start":  EffectSession,
	"record stop":   EffectSession,
	"record status": EffectSession,

	"read":     EffectSession,
	"progress": EffectSession,
	"quiz":     EffectSession,
	"lab list": EffectSession,
	"lab run":  EffectSession,
	"lab step": EffectSession,
	// exercise try opens a fresh cluster and runs the exercise's setup.
	"exercise try":   EffectChange,
	"exercise list":  EffectSession,
	"exercise show":  EffectSession,
	"exercise hint":  EffectSession,
	"exercise check": EffectSession,
}

// effectOf is what running cmd with these arguments does.
func effectOf(cmd *Command, a *Args) Effect {
	e := commandEffects[cmd.FullName()]
	if e == EffectUnknown {
		return EffectOutside
	}
	if cmd == clusterOpenCommand() && a != nil && a.Has("dir") {
		return EffectOutside
	}
	if cmd.Name == "check" && a != nil && a.Len() == 0 && len(a.pairs) == 0 {
		return EffectSession // check alone judges the exercise being tried
	}
	return e
}

// resets reports whether a command's state depends on nothing before it:
// a fresh `cluster open` (without dir=) and `exercise try` open a new
// cluster, so a replay may start there.
func resets(cmd *Command, a *Args) bool {
	switch cmd.FullName() {
	case "cluster open":
		return a == nil || !a.Has("dir")
	case "exercise try":
		return true
	}
	return false
}

// clusterOpenCommand is the `cluster open` subcommand.
func clusterOpenCommand() *Command { return clusterCommand.sub("open") }
