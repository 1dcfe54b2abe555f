package sandbox

import (
	"fmt"
	"strings"
)

// Mode is the sandbox mode, read from CORE_SESSION_SANDBOX.
type Mode string

const (
	// ModeAuto uses bwrap when the live probe passes, else the Docker
	// backend when it passes, and runs build-tier commands unconfined when
	// neither does.
	ModeAuto Mode = "auto"
	// ModeBwrap requires the sandbox: a failed probe is fatal.
	ModeBwrap Mode = "bwrap"
	// ModeDocker requires the Docker backend: sibling containers through
	// the engine's API, without trying bwrap.
	ModeDocker Mode = "docker"
	// ModeOff opts out of the sandbox; the test tier then refuses to start.
	ModeOff Mode = "off"
)

// ParseMode reads CORE_SESSION_SANDBOX. The empty string is ModeAuto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "", ModeAuto:
		return ModeAuto, nil
	case ModeBwrap, ModeDocker, ModeOff:
		return m, nil
	}
	return "", fmt.Errorf("CORE_SESSION_SANDBOX must be auto, bwrap, docker or off, got %q", s)
}
