package repl

// commandTable is the REPL's one command table, in the order help lists
// them within each group. Dispatch, help, tab completion and
// docs/commands.md all read it; nothing registers itself elsewhere.
func commandTable() []*Command {
	return []*Command{
		helpCommand,
		historyCommand,
		exitCommand,
		quitCommand,
	}
}
