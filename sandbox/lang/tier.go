package lang

import (
	"fmt"
	"strings"
)

// Tier says how much a run may verify without asking a human.
type Tier string

const (
	// TierOff sends every command to the approval gate.
	TierOff Tier = "off"
	// TierBuild lets commands run that compile but do not run workspace code.
	TierBuild Tier = "build"
	// TierTest adds commands that run workspace code (tests); these run only
	// inside the sandbox.
	TierTest Tier = "test"
)

// ParseTier reads a tier as given to --verify or CORE_SESSION_VERIFY. The
// empty string is TierOff.
func ParseTier(s string) (Tier, error) {
	switch t := Tier(strings.ToLower(strings.TrimSpace(s))); t {
	case "", TierOff:
		return TierOff, nil
	case TierBuild, TierTest:
		return t, nil
	}
	return "", fmt.Errorf("verify tier must be off, build or test, got %q", s)
}
