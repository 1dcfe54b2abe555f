package console

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestContractOfEnvironment: a check that could not judge the code (the
// environment's, with its cause) shows as such on the run page, and an
// unjudged contract is a warning, not a pass.
func TestContractOfEnvironment(t *testing.T) {
	t.Parallel()
	v := contractOf([]byte(`{"contract": {"verdict": "unjudged", "checks": [{"command": ["npm", "test"], "source": "user", "verdict": "environment",
		"baseline": {"exit": 127, "seconds": 0.2, "cause": "a tool is missing: xo"}, "result": {"exit": 127, "seconds": 0.3, "cause": "a tool is missing: xo"}}]}}`))
	if assert.NotNil(t, v) && assert.Len(t, v.Checks, 1) {
		assert.Equal(t, "could not judge, exit 127 (0.3s): the environment's, a tool is missing: xo", v.Checks[0].Result)
		assert.Equal(t, "environment", v.Checks[0].Verdict)
	}
	assert.Equal(t, "warn", tone("unjudged"))
}
