// Package repl is MiniKafka Lab's command language: the session that owns a
// cluster, the one command table, argument parsing, renderers, completion
// and the line editor.
//
// Session.Exec is the single entry point. The interactive REPL, piped
// scripts, labs, exercises and chapter transcripts all feed it one line at a
// time:
//
//	s, err := repl.NewSession(repl.Options{})
//	...
//	err = s.Exec(os.Stdout, "produce orders key=alice value=created")
//
// Every command is declared once in commandTable (commands.go), which drives
// dispatch, `help`, tab completion and docs/commands.md.
package repl
