package session

import (
	"errors"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session/model"
	"github.com/coreagent/core/session/state"
)

// InfraError is a failure met before a session could start that is no
// setting's fault: GitHub or the model server did not answer, cut the
// connection or answered 5xx. Trying again later may work; changing the
// options will not.
type InfraError struct {
	Err error
}

func (e *InfraError) Error() string { return e.Err.Error() }

func (e *InfraError) Unwrap() error { return e.Err }

// StartError says who must act on err, met while a session starts: an
// outage of GitHub or of the model server is an *InfraError; anything else
// is the user's to fix, a *ConfigError (an error that already is one of
// the two is kept as it is).
func StartError(err error) error {
	var ie *InfraError
	var ce *ConfigError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ie), errors.As(err, &ce):
		return err
	case Outage(err):
		return &InfraError{Err: err}
	}
	return &ConfigError{Err: err}
}

// Outage reports whether err says GitHub or the model server is down or
// failing for now (no answer, a cut connection, 5xx, a rate limit), not
// that what was asked of it was wrong.
func Outage(err error) bool {
	var me *model.Error
	if errors.As(err, &me) {
		return me.Kind == model.KindTransient || me.Status >= 500
	}
	var de *model.DiscoveryError
	if errors.As(err, &de) {
		// A server the user named that no HTTP server answers for is
		// down; none found among the usual local addresses means none
		// was named, which is the user's to do.
		return de.Given
	}
	return gh.Unavailable(err)
}

// FailureKindOf says who must act on an error that ended a run before its
// session had a report: a remote service or the machine
// (FailInfrastructure), the user (FailConfiguration), or core itself
// (FailError).
func FailureKindOf(err error) state.FailureKind {
	var ie *InfraError
	var ce *ConfigError
	switch {
	case errors.As(err, &ie):
		return state.FailInfrastructure
	case errors.As(err, &ce):
		return state.FailConfiguration
	}
	return state.FailError
}
