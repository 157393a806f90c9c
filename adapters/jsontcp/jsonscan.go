package jsontcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The request decoder's JSON helpers: a small scanner that splits an object
// json.Valid has accepted, and the words messages use for JSON values.

// parseObject splits a JSON object that json.Valid accepted into its
// members, rejecting repeated keys. It scans the bytes itself: a validated
// document needs no second full parse.
func parseObject(data []byte, where string) (*fields, error) {
	data = trimJSONSpace(data)
	f := &fields{where: where, raw: map[string]json.RawMessage{}}
	i := skipSpace(data, 1) // past '{'
	if data[i] == '}' {
		return f, nil
	}
	for {
		end := valueEnd(data, i)
		name, err := unquote(data[i:end])
		if err != nil {
			return nil, invalid("invalid JSON: %v", err)
		}
		i = skipSpace(data, skipSpace(data, end)+1) // past ':'
		end = valueEnd(data, i)
		if _, dup := f.raw[name]; dup {
			return nil, invalid("duplicate field %s", quote(where+name))
		}
		f.names = append(f.names, name)
		f.raw[name] = data[i:end:end]
		i = skipSpace(data, end)
		if data[i] == '}' {
			return f, nil
		}
		i = skipSpace(data, i+1) // past ','
	}
}

// skipSpace returns the index of the first non-whitespace byte at or after i.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// valueEnd returns the index just past the valid JSON value starting at i.
func valueEnd(data []byte, i int) int {
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = stringEnd(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	default: // number, true, false, null
		for i < len(data) && !strings.ContainsRune(",}] \t\r\n", rune(data[i])) {
			i++
		}
		return i
	}
}

// stringEnd returns the index just past the JSON string starting at i.
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// unquote decodes a valid JSON string; without escapes it is a plain copy.
func unquote(raw []byte) (string, error) {
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// kindOf names the JSON type of a valid raw value.
func kindOf(raw []byte) string {
	raw = trimJSONSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// describe names a raw value's type for a message, showing short scalars.
func describe(raw []byte) string {
	switch k := kindOf(raw); k {
	case "number", "boolean", "null":
		if len(raw) <= 32 {
			return fmt.Sprintf("%s %s", k, raw)
		}
		return k
	case "string":
		if s, err := unquote(raw); err == nil {
			return "string " + quote(s)
		}
		return k
	default:
		return k
	}
}

func isNull(raw []byte) bool { return kindOf(raw) == "null" }

// quote renders a user-supplied string for a message, cut to a readable length.
func quote(s string) string {
	const limit = 64
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return "'" + s + "'"
}

// trimJSONSpace removes JSON whitespace (space, tab, CR, LF) at both ends.
func trimJSONSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
