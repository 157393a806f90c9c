// Package pyjson writes compact JSON text the way Python's json.dumps writes
// it by default (ensure_ascii): non-ASCII as \uXXXX, '<', '>' and '&'
// literal. The files the reference writes with json.dumps (offsets.json,
// groups.json, transactions.journal) are then byte-for-byte the same.
package pyjson

// AppendString appends s as a JSON string literal the way Python's
// json.dumps does by default (ensure_ascii): the quote and the backslash are
// escaped, \b \f \n \r \t use their short forms, every other rune outside
// printable ASCII (0x20–0x7e) becomes \uXXXX in lowercase hex, and runes
// beyond the Basic Multilingual Plane become a surrogate pair. '<', '>' and
// '&' are written as themselves. The output is pure ASCII and depends only
// on s. Callers reject strings that are not valid UTF-8 before they reach
// the encoder (an invalid byte would be written as \ufffd).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"':
			dst = append(dst, '\\', '"')
		case r == '\\':
			dst = append(dst, '\\', '\\')
		case r == '\b':
			dst = append(dst, '\\', 'b')
		case r == '\f':
			dst = append(dst, '\\', 'f')
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r >= 0x20 && r <= 0x7e:
			dst = append(dst, byte(r))
		case r < 0x10000:
			dst = appendUnicodeEscape(dst, r)
		default:
			r -= 0x10000
			dst = appendUnicodeEscape(dst, 0xd800+(r>>10))
			dst = appendUnicodeEscape(dst, 0xdc00+(r&0x3ff))
		}
	}
	return append(dst, '"')
}

// appendUnicodeEscape appends \uXXXX for r < 0x10000, in lowercase hex.
func appendUnicodeEscape(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}
