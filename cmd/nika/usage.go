package main

import (
	"errors"
	"regexp"
	"strings"

	"github.com/nika-dev/nika/refusal"
)

// usageError is a command line that does not parse: a flag no verb has, a
// missing value, a verb nika does not know.
type usageError struct{ text, hint string }

func (e *usageError) Error() string { return e.text }

func isUsageError(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

// asRefusal turns any error into the refusal a door prints.
func asRefusal(err error) *refusal.Error {
	var ce *refusal.Error
	if errors.As(err, &ce) {
		return ce
	}
	var u *usageError
	if errors.As(err, &u) {
		return &refusal.Error{Class: refusal.Invalid, Text: u.text, Hint: u.hint}
	}
	return &refusal.Error{Class: refusal.Invalid, Text: err.Error(), Hint: "run nika help"}
}

// flagProblem rewrites the standard library's flag messages the way git
// users read them: the flag with the dashes they typed.
var flagProblem = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)

func usageProblem(verb string, err error) error {
	text := err.Error()
	if m := flagProblem.FindStringSubmatch(text); m != nil {
		text = "unknown flag --" + m[1]
		if len(m[1]) == 1 {
			text = "unknown flag -" + m[1]
		}
	}
	text = strings.Replace(text, "flag needs an argument: -", "flag needs a value: --", 1)
	hint := "run nika help to see the verbs"
	if verb != "" {
		text = "nika " + verb + ": " + text
		hint = "run nika help " + verb + " to see its flags"
	}
	return &usageError{text: text, hint: hint}
}
