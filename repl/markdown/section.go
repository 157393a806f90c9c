package markdown

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/minikafka-lab/minikafka/internal/lazyre"
)

// sectionRe matches a chapter's section headings (## ...).
var sectionRe = lazyre.New(`^## +(.+)$`)

// Section is the chapter's title and one of its ## sections: by number
// (1 is the first ## heading) or by a word of its heading.
func Section(src []byte, which string) ([]byte, error) {
	lines := strings.Split(string(src), "\n")
	type sec struct {
		title    string
		from, to int
	}
	var secs []sec
	title := ""
	fence := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		if fence {
			continue
		}
		if strings.HasPrefix(l, "# ") && title == "" {
			title = l
		}
		if m := sectionRe().FindStringSubmatch(l); m != nil {
			if n := len(secs); n > 0 {
				secs[n-1].to = i
			}
			secs = append(secs, sec{title: m[1], from: i, to: len(lines)})
		}
	}
	var names []string
	for i, sc := range secs {
		names = append(names, fmt.Sprintf("%d %s", i+1, sc.title))
	}
	pick := -1
	if n, err := strconv.Atoi(which); err == nil {
		if n >= 1 && n <= len(secs) {
			pick = n - 1
		}
	} else {
		for i, sc := range secs {
			if strings.Contains(strings.ToLower(sc.title), strings.ToLower(which)) {
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		return nil, fmt.Errorf("no section %q; the sections are: %s", which, strings.Join(names, "; "))
	}
	out := title + "\n\n" + strings.Join(lines[secs[pick].from:secs[pick].to], "\n") + "\n"
	return []byte(out), nil
}
