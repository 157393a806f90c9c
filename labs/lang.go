package labs

import (
	"errors"
	"fmt"
	"strings"
)

// Language is the language of teaching material: English, the language the
// material is written in, or a translation kept beside it.
type Language string

// The languages of the built-in material.
const (
	English Language = "en"
	Chinese Language = "zh"
)

// Translations are the languages material may be translated into, besides
// English. A translation of chapters/NN-slug.md is chapters/LANG/NN-slug.md;
// of a lab or exercise file, the file with ".LANG" appended
// (01-leo-vs-hw.lab.zh); of the step and checker messages, labs/messages.LANG.
var Translations = []Language{Chinese}

// ErrNoTranslation is returned (wrapped) when material has no text in the
// language asked for.
var ErrNoTranslation = errors.New("no translation")

// Name is the language's name in English, for messages.
func (l Language) Name() string {
	switch l {
	case English:
		return "English"
	case Chinese:
		return "Chinese"
	}
	return string(l)
}

// ParseLanguage reads a --lang value: "en" or "zh", in any case, also with
// a region or script ("zh-CN", "zh_Hans", "en_US").
func ParseLanguage(s string) (Language, error) {
	base := strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexAny(base, "-_."); i >= 0 {
		base = base[:i]
	}
	switch Language(base) {
	case English:
		return English, nil
	case Chinese:
		return Chinese, nil
	}
	return "", fmt.Errorf("unknown language %q: use en or zh", s)
}

// LanguageFromEnv is the default language: Chinese when the locale (the
// first non-empty of LC_ALL, LC_MESSAGES and LANG, as POSIX orders them)
// starts with "zh", else English.
func LanguageFromEnv(getenv func(string) string) Language {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		if strings.HasPrefix(strings.ToLower(v), "zh") {
			return Chinese
		}
		return English
	}
	return English
}

// isTranslation reports whether lang is one of Translations.
func isTranslation(lang Language) bool {
	for _, t := range Translations {
		if t == lang {
			return true
		}
	}
	return false
}
