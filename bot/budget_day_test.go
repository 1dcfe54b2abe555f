package bot

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coreagent/core/session"
	"github.com/coreagent/core/setup"
)

// TestDayTooSmallNamesTheDay: a session's refusal of a budget too small
// for its first request is worded as the day's when what was left of the
// repository's daily budget set it, and left as it is when the bot's own
// budget did (or the error is another).
func TestDayTooSmallNamesTheDay(t *testing.T) {
	t.Parallel()
	refused := &session.ConfigError{Option: setup.BudgetUSD, Err: errors.New("0.0001 cannot fit the first request")}
	err := dayTooSmall(refused, 0, 0.0001)
	assert.EqualError(t, err, "this repository's daily budget has $0.0001 left today (UTC, CORE_BOT_DAILY_BUDGET_USD), too little for a run's first request (0.0001 cannot fit the first request). Ask again tomorrow, or ask whoever runs core's bot to raise it")
	assert.NotContains(t, err.Error(), "CORE_SESSION_BUDGET_USD")
	assert.Same(t, refused, dayTooSmall(refused, 0.5, 0.5), "the bot's own budget, not the day's")
	other := errors.New("clone failed")
	assert.Same(t, other, dayTooSmall(other, 0, 0.0001))
	assert.NoError(t, dayTooSmall(nil, 0, 0.0001))
}
