package repl

import "fmt"

// chapterTitles names the chapters (spec §18, and chapter 11), so that help can say
// where a command is taught.
var chapterTitles = map[int]string{
	1:  "Meet MiniKafka",
	2:  "The log",
	3:  "Retention and compaction",
	4:  "The producer",
	5:  "Replication I: followers and watermarks",
	6:  "Replication II: ISR and fencing",
	7:  "Consumer groups",
	8:  "Transactions",
	9:  "Delivery semantics",
	10: "Protocol and beyond",
	11: "Real clients",
}

// chapterLabel is "chapter 5 (Replication I: followers and watermarks)", or
// "" for commands of the tool itself.
func chapterLabel(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("chapter %d (%s)", n, chapterTitles[n])
}
