package setup

import (
	"errors"

	"github.com/coreagent/core/session"
)

// wordedError is a configuration error reworded for an entry point.
type wordedError struct {
	text string
	err  *session.ConfigError
}

func (e *wordedError) Error() string { return e.text }
func (e *wordedError) Unwrap() error { return e.err }

// Word rewrites a *session.ConfigError for an entry point's users: name
// turns the option's name into what they type (--base, the base input,
// CORE_SESSION_VERIFY); "" leaves the option out, for errors that already
// name what to set. Other errors come back as they are.
func Word(err error, name func(option string) string) error {
	var ce *session.ConfigError
	if !errors.As(err, &ce) || ce.Option == "" {
		return err
	}
	n := name(ce.Option)
	if n == "" {
		return &wordedError{text: ce.Err.Error(), err: ce}
	}
	return &wordedError{text: n + ": " + ce.Err.Error(), err: ce}
}

// EnvOnly reports the options that are set only through the environment
// (CORE_HOME, CORE_SESSION_SANDBOX), whose errors already name the
// variable: entry points word them with "".
func EnvOnly(option string) bool { return option == "home" || option == "sandbox" }

// FlagWording names options as the CLI's flags, or as the environment
// variable for settings the CLI takes no flag for.
func FlagWording(option string) string {
	if EnvOnly(option) {
		return ""
	}
	if s, ok := Lookup(option); ok && !s.Flag {
		return s.Env()
	}
	return "--" + option
}

// InputWording names options as the Action's inputs, or as the
// environment variable for settings it takes no input for.
func InputWording(option string) string {
	if EnvOnly(option) {
		return ""
	}
	s, ok := Lookup(option)
	if ok && !s.Input {
		return s.Env()
	}
	if !ok {
		s = Setting{Name: option}
	}
	return "the " + s.InputName() + " input"
}

// EnvWording names options as environment variables: the bot has no
// other inputs.
func EnvWording(option string) string {
	if EnvOnly(option) {
		return ""
	}
	if s, ok := Lookup(option); ok {
		return s.Env()
	}
	return "the run's " + option
}
