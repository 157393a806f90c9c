package repl

import (
	"fmt"

	"github.com/fatih/color"
)

// ColorMode is the --color setting.
type ColorMode string

// The --color settings.
const (
	ColorAuto   ColorMode = "auto"
	ColorAlways ColorMode = "always"
	ColorNever  ColorMode = "never"
)

// ParseColorMode reads auto, always or never.
func ParseColorMode(s string) (ColorMode, error) {
	switch m := ColorMode(s); m {
	case ColorAuto, ColorAlways, ColorNever:
		return m, nil
	}
	return "", fmt.Errorf("--color must be auto, always or never, got %q", s)
}

// UseColor decides whether output gets ANSI colour. A non-empty NO_COLOR
// always switches it off, even --color=always (the product's rule: never
// with NO_COLOR); otherwise always colours, never does not, and auto
// colours only a terminal that is not TERM=dumb, or when FORCE_COLOR is set.
func UseColor(mode ColorMode, stdoutIsTerminal bool, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" {
		return false
	}
	switch mode {
	case ColorAlways:
		return true
	case ColorNever:
		return false
	}
	if getenv("FORCE_COLOR") != "" {
		return true
	}
	return stdoutIsTerminal && getenv("TERM") != "dumb"
}

// style colours text when colour is on and leaves it untouched otherwise.
// Each fatih/color object is switched on or off by itself, so the library's
// global (decided once from os.Stdout) never matters.
type style struct {
	on bool

	errLabel, hint, event, committed, tail, marker, leader, heading, dim *color.Color
}

func newStyle(on bool) *style {
	st := &style{
		on:        on,
		errLabel:  color.New(color.FgRed, color.Bold),
		hint:      color.New(color.FgYellow),
		event:     color.New(color.FgCyan),
		committed: color.New(color.FgGreen),
		tail:      color.New(color.FgYellow),
		marker:    color.New(color.FgMagenta, color.Bold),
		leader:    color.New(color.Bold),
		heading:   color.New(color.Bold),
		dim:       color.New(color.Faint),
	}
	for _, c := range []*color.Color{st.errLabel, st.hint, st.event, st.committed, st.tail, st.marker, st.leader, st.heading, st.dim} {
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return st
}

func (st *style) paint(c *color.Color, s string) string {
	if !st.on || s == "" {
		return s
	}
	return c.Sprint(s)
}
