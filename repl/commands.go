package repl

// commandTable is the REPL's one command table, in the order help lists
// them within each group. Dispatch, help, tab completion and
// docs/commands.md all read it; nothing registers itself elsewhere.
func commandTable() []*Command {
	return []*Command{
		// Cluster and time
		clusterCommand,
		configCommand,
		clockCommand,
		// Topics and records
		topicCommand,
		produceCommand,
		fetchCommand,
		// Producers
		producerCommand,
		// Replication and failure
		replicateCommand,
		promoteCommand,
		exploreCommand,
		rejoinCommand,
		brokerCommand,
		// The log on disk
		logCommand,
		corruptCommand,
		retentionCommand,
		compactCommand,
		// Consumers and groups
		consumerCommand,
		groupCommand,
		// Transactions
		txnCommand,
		// The JSON/TCP adapter
		serveCommand,
		remoteCommand,
		dispatchCommand,
		// The Kafka protocol
		kafkaCommand,
		kclientCommand,
		// Views and checks
		offsetsCommand,
		showCommand,
		checkCommand,
		// The course
		readCommand,
		labCommand,
		exerciseCommand,
		quizCommand,
		progressCommand,
		// Session
		helpCommand,
		historyCommand,
		undoCommand,
		forkCommand,
		recordCommand,
		exitCommand,
		quitCommand,
	}
}
