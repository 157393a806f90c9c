package labs

import "github.com/mattn/go-runewidth"

// widths measures text in terminal columns: East Asian wide characters
// (Chinese among them) take two. Ambiguous characters count one whatever
// the locale, so that output does not depend on the environment.
var widths = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// displayWidth is the number of terminal columns s takes.
func displayWidth(s string) int { return widths.StringWidth(s) }
