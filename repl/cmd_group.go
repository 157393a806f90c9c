package repl

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/minikafka-lab/minikafka/engine"
	"github.com/minikafka-lab/minikafka/engine/kerr"
)

var groupCommand = &Command{
	Name:    "group",
	Summary: "consumer groups as kafka-consumer-groups shows them",
	Chapter: 7,
	Group:   "Consumers and groups",
	Sub: []*Command{
		{
			Name:    "list",
			Summary: "every group with its state, generation and member count",
			Run:     runGroupList,
		},
		{
			Name:    "describe",
			Args:    "G [members | state]",
			Summary: "kafka-consumer-groups --describe: committed offset, log end (HW) and lag per partition",
			Detail: `Prints Kafka's offsets view: a blank line, then
GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID
with Kafka's column widths. CURRENT-OFFSET is the committed offset,
LOG-END-OFFSET the partition's high watermark (what a consumer can reach,
not the leader's LEO) and LAG their difference; - marks a missing value.
CONSUMER-ID is the member that owns the partition now. Every member runs
in this process, so HOST is /127.0.0.1; CLIENT-ID is the consumer's REPL
name. The members flag prints Kafka's --members view, state its --state
view (MiniKafka has no coordinator broker, so that column is left out and
the generation is added).

Under views=kafka (rules=kafka) the rows follow Kafka 4.0's order
(ConsumerGroupCommand.collectGroupsOffsets): grouped by member, the member
with the most partitions first, then the committed partitions nobody owns;
and the members view is --members --verbose with Kafka's widths and its
assignment shape "(0,2), (1)" (one parenthesis per topic, as 3.8+ prints).
The default rows are sorted by topic and partition.

A group exists once a consumer joins it or offsets are committed for it.
For any other name the command fails as kafka-consumer-groups does
("Consumer group 'G' does not exist."), with the code UNKNOWN_MEMBER.`,
			Positional: []Param{{Name: "G", Values: liveGroups}},
			Flags:      []Param{{Name: "members"}, {Name: "state"}},
			Run:        runGroupDescribe,
		},
	},
}

// groupListing is the result of group list.
type groupListing struct {
	Groups []groupRow `json:"groups"`
}

type groupRow struct {
	Group      string `json:"group"`
	State      string `json:"state"` // the spec's value: empty, stable
	kafkaState string
	Generation int32 `json:"generation"`
	Members    int   `json:"members"`
}

func (l groupListing) writeText(w io.Writer, _ *style) error {
	if len(l.Groups) == 0 {
		_, err := fmt.Fprintln(w, "(no groups)")
		return err
	}
	var rows [][]string
	for _, g := range l.Groups {
		rows = append(rows, []string{g.Group, g.kafkaState, fmt.Sprint(g.Generation), fmt.Sprint(g.Members)})
	}
	return renderTable(w, []string{"GROUP", "STATE", "GENERATION", "MEMBERS"}, rows)
}

func runGroupList(s *Session, w io.Writer, a *Args) error {
	gs, err := s.cluster.ListGroups()
	if err != nil {
		return err
	}
	res := groupListing{Groups: []groupRow{}}
	for _, g := range gs {
		res.Groups = append(res.Groups, groupRow{Group: g.GroupID, State: g.State.String(), kafkaState: g.State.KafkaName(), Generation: g.Generation, Members: g.Members})
	}
	return s.emit(w, res)
}

// groupError says an unknown group the way kafka-consumer-groups does
// ("Consumer group 'G' does not exist."), keeping the engine's code
// (UNKNOWN_MEMBER, decision 21); other errors pass unchanged.
func groupError(group string, err error) error {
	if !errors.Is(err, kerr.UnknownMember) {
		return err
	}
	return &hintedError{
		err:  kerr.New(kerr.UnknownMember, "consumer group '%s' does not exist", group),
		hint: "a group exists once a consumer joins it (`consumer subscribe`) or offsets are committed for it; `group list` shows the groups",
	}
}

// groupView is the result of group describe, in the JSON shape of repl.md.
type groupView struct {
	Group      string         `json:"group"`
	State      string         `json:"state"` // the spec's value: empty, stable
	kafkaState string         // what Kafka prints: Empty, Stable
	Generation int32          `json:"generation"`
	Members    []groupMember  `json:"members"`
	Partitions []groupPartRow `json:"partitions"`
	view       string         // "", "members" or "state"
	kafka      bool           // views=kafka
}

type groupMember struct {
	MemberID   string   `json:"member_id"`
	ClientID   *string  `json:"client_id"`
	Assignment []string `json:"assignment"`
}

type groupPartRow struct {
	Topic         string  `json:"topic"`
	Partition     int32   `json:"partition"`
	CurrentOffset *int64  `json:"current_offset"`
	LogEndOffset  *int64  `json:"log_end_offset"`
	Lag           *int64  `json:"lag"`
	ConsumerID    *string `json:"consumer_id"`
	ClientID      *string `json:"client_id"`
}

// localHost is what HOST shows for a member: every consumer runs in this
// process.
const localHost = "/127.0.0.1"

func dash(p *int64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func dashS(p *string) string {
	if p == nil || *p == "" {
		return "-"
	}
	return *p
}

func widthOf(min int, values ...string) int {
	w := min
	for _, v := range values {
		w = max(w, len(v))
	}
	return w
}

// writeText prints kafka-consumer-groups --describe (offsets view, or the
// --members and --state views): a blank line, then left-aligned columns
// separated by one space.
func (g groupView) writeText(w io.Writer, _ *style) error {
	switch g.view {
	case "members":
		return g.writeMembers(w)
	case "state":
		return g.writeState(w)
	}
	if len(g.Members) == 0 {
		fmt.Fprintf(w, "\nConsumer group '%s' has no active members.\n", g.Group)
	}
	if g.kafka {
		g.Partitions = kafkaRowOrder(g.Members, g.Partitions)
	}
	var topics, consumers, hosts []string
	for _, p := range g.Partitions {
		topics = append(topics, p.Topic)
		consumers = append(consumers, dashS(p.ConsumerID))
		if p.ConsumerID != nil {
			hosts = append(hosts, localHost)
		}
	}
	gw, tw, cw, hw := widthOf(15, g.Group), widthOf(15, topics...), widthOf(15, consumers...), widthOf(15, hosts...)
	format := fmt.Sprintf("%%-%ds %%-%ds %%-10s %%-15s %%-15s %%-15s %%-%ds %%-%ds %%s\n", gw, tw, cw, hw)
	fmt.Fprintln(w)
	fmt.Fprintf(w, format, "GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID")
	for _, p := range g.Partitions {
		host := "-"
		if p.ConsumerID != nil {
			host = localHost
		}
		fmt.Fprintf(w, format, g.Group, p.Topic, fmt.Sprint(p.Partition), dash(p.CurrentOffset), dash(p.LogEndOffset), dash(p.Lag),
			dashS(p.ConsumerID), host, dashS(p.ClientID))
	}
	return nil
}

// kafkaRowOrder orders offsets rows as Kafka 4.0 does
// (ConsumerGroupCommand.collectGroupsOffsets): members with partitions, the
// one with the most first (ties in the group's member order), each member's
// rows by partition (then topic; Kafka then walks a HashMap, so rows of one
// member may come in another order there), then the committed partitions
// no member owns.
func kafkaRowOrder(members []groupMember, rows []groupPartRow) []groupPartRow {
	byMember := slices.Clone(members)
	slices.SortStableFunc(byMember, func(a, b groupMember) int { return len(b.Assignment) - len(a.Assignment) })
	byPartition := func(a, b groupPartRow) int {
		if a.Partition != b.Partition {
			return int(a.Partition - b.Partition)
		}
		return strings.Compare(a.Topic, b.Topic)
	}
	out := make([]groupPartRow, 0, len(rows))
	for _, m := range byMember {
		var mine []groupPartRow
		for _, r := range rows {
			if r.ConsumerID != nil && *r.ConsumerID == m.MemberID {
				mine = append(mine, r)
			}
		}
		slices.SortFunc(mine, byPartition)
		out = append(out, mine...)
	}
	var unowned []groupPartRow
	for _, r := range rows {
		if r.ConsumerID == nil {
			unowned = append(unowned, r)
		}
	}
	slices.SortFunc(unowned, byPartition)
	return append(out, unowned...)
}

// writeMembers prints the --members --verbose view.
func (g groupView) writeMembers(w io.Writer) error {
	if len(g.Members) == 0 {
		_, err := fmt.Fprintf(w, "\nConsumer group '%s' has no active members.\n", g.Group)
		return err
	}
	if g.kafka {
		return g.writeKafkaMembers(w)
	}
	var ids []string
	for _, m := range g.Members {
		ids = append(ids, m.MemberID)
	}
	gw, cw, hw := widthOf(15, g.Group), widthOf(15, ids...), widthOf(15, localHost)
	fmt.Fprintln(w)
	format := fmt.Sprintf("%%-%ds %%-%ds %%-%ds %%-15s %%-12s %%s\n", gw, cw, hw)
	fmt.Fprintf(w, format, "GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "ASSIGNMENT")
	for _, m := range g.Members {
		fmt.Fprintf(w, format, g.Group, m.MemberID, localHost, dashS(m.ClientID), fmt.Sprint(len(m.Assignment)), kafkaAssignment(m.Assignment))
	}
	return nil
}

// writeKafkaMembers prints Kafka 4.0's --members --verbose view
// (ConsumerGroupCommand.printMembers): GROUP, CONSUMER-ID, HOST and
// CLIENT-ID at least 15 wide, #PARTITIONS 15 wide and a space, then
// ASSIGNMENT as 3.8+ prints it.
func (g groupView) writeKafkaMembers(w io.Writer) error {
	ids, clients := []string{}, []string{}
	for _, m := range g.Members {
		ids = append(ids, m.MemberID)
		clients = append(clients, dashS(m.ClientID))
	}
	gw, cw, hw, clw := widthOf(15, g.Group), widthOf(15, ids...), widthOf(15, localHost), widthOf(15, clients...)
	format := fmt.Sprintf("%%-%ds %%-%ds %%-%ds %%-%ds %%-15s %%s", gw, cw, hw, clw)
	fmt.Fprintln(w)
	fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf(format, "GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "ASSIGNMENT"), " "))
	for _, m := range g.Members {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf(format, g.Group, m.MemberID, localHost, dashS(m.ClientID), fmt.Sprint(len(m.Assignment)), kafka38Assignment(m.Assignment)), " "))
	}
	return nil
}

// kafka38Assignment renders partitions as Kafka 3.8+ --members --verbose
// does: one "(p,p)" per topic, without the topic's name, partitions and
// groups sorted as strings; "-" for none.
func kafka38Assignment(tps []string) string {
	if len(tps) == 0 {
		return "-"
	}
	parts := map[string][]string{}
	for _, name := range tps {
		i := strings.LastIndexByte(name, '-')
		parts[name[:i]] = append(parts[name[:i]], name[i+1:])
	}
	var groups []string
	for _, ps := range parts {
		slices.Sort(ps)
		groups = append(groups, "("+strings.Join(ps, ",")+")")
	}
	slices.Sort(groups)
	return strings.Join(groups, ", ")
}

// kafkaAssignment renders partitions as Kafka's --members --verbose does:
// "orders(0,2), payments(1)"; "-" for none.
func kafkaAssignment(tps []string) string {
	if len(tps) == 0 {
		return "-"
	}
	var order []string
	parts := map[string][]string{}
	for _, name := range tps {
		i := strings.LastIndexByte(name, '-')
		t, p := name[:i], name[i+1:]
		if _, ok := parts[t]; !ok {
			order = append(order, t)
		}
		parts[t] = append(parts[t], p)
	}
	var out []string
	for _, t := range order {
		out = append(out, t+"("+strings.Join(parts[t], ",")+")")
	}
	return strings.Join(out, ", ")
}

// writeState prints the --state view (without Kafka's COORDINATOR column,
// with the generation).
func (g groupView) writeState(w io.Writer) error {
	gw := widthOf(15, g.Group)
	format := fmt.Sprintf("%%-%ds %%-20s %%-20s %%-11s %%s\n", gw)
	fmt.Fprintln(w)
	fmt.Fprintf(w, format, "GROUP", "ASSIGNMENT-STRATEGY", "STATE", "GENERATION", "#MEMBERS")
	fmt.Fprintf(w, format, g.Group, "roundrobin", g.kafkaState, fmt.Sprint(g.Generation), fmt.Sprint(len(g.Members)))
	return nil
}

func runGroupDescribe(s *Session, w io.Writer, a *Args) error {
	if a.Flag("members") && a.Flag("state") {
		return a.usage("members and state are two views: pick one")
	}
	d, err := s.cluster.DescribeGroup(a.Pos(0))
	if err != nil {
		return groupError(a.Pos(0), err)
	}
	v := groupView{Group: d.GroupID, State: d.State.String(), kafkaState: d.State.KafkaName(), Generation: d.Generation,
		Members: []groupMember{}, Partitions: []groupPartRow{}, kafka: s.cluster.Config().Rules.Views == engine.ViewsKafka}
	switch {
	case a.Flag("members"):
		v.view = "members"
	case a.Flag("state"):
		v.view = "state"
	}
	client := func(member string) *string {
		if n := s.consumerName(member); n != "" {
			return &n
		}
		return nil
	}
	for _, m := range d.Members {
		v.Members = append(v.Members, groupMember{MemberID: m.MemberID, ClientID: client(m.MemberID), Assignment: tpNames(m.Assignment)})
	}
	for _, p := range d.Partitions {
		row := groupPartRow{Topic: p.TP.Topic, Partition: p.TP.Partition}
		if p.CurrentOffset >= 0 {
			o := p.CurrentOffset
			row.CurrentOffset = &o
		}
		if p.LogEndOffset >= 0 {
			o := p.LogEndOffset
			row.LogEndOffset = &o
		}
		if p.Lag >= 0 {
			o := p.Lag
			row.Lag = &o
		}
		if p.ConsumerID != "" {
			id := p.ConsumerID
			row.ConsumerID, row.ClientID = &id, client(id)
		}
		v.Partitions = append(v.Partitions, row)
	}
	return s.emit(w, v)
}
