package console

// Ending is how a run ended, or that it has not: one of the Ending*
// keys, the words the pages show for it, and the tone (a CSS class of
// the badge) they are shown in. Every page and chart that sorts runs by
// how they ended uses EndingOf, so a run reads the same everywhere.
type Ending struct {
	Key  string // EndingLive, EndingHeld, …: stable, a chart's series and a CSS class
	Word string // what a person reads: "completed, contract held"
	Tone string // ok, warn, busy, plain or bad; only a failed run is bad
}

// The endings, in the order the charts stack them.
const (
	EndingHeld      = "held"      // completed, and the contract held
	EndingCompleted = "completed" // completed (or done) with any other verdict, or none
	EndingExhausted = "exhausted" // the budget ran out; the work landed as a draft
	EndingStopped   = "stopped"   // cancelled or stopped by a person
	EndingPartial   = "partial"   // a limit was hit; the work is kept
	EndingLost      = "lost"      // its machine stopped reporting (StatusLost)
	EndingFailed    = "failed"
	EndingLive      = "live" // has not ended: queued, starting, working or idle
)

// Endings lists the keys in the order the charts stack them.
var Endings = []string{EndingHeld, EndingCompleted, EndingExhausted, EndingStopped, EndingPartial, EndingLost, EndingFailed, EndingLive}

// EndingOf says how run ended. It reads the statuses of every entry
// point: a session's (completed, budget_exhausted, …), the bot's (done,
// running, …) and the console's own (lost).
func EndingOf(run *Run) Ending {
	switch run.Status {
	case "completed", "done", "succeeded":
		if run.Verdict == "held" {
			return Ending{EndingHeld, "completed, contract held", "ok"}
		}
		return Ending{EndingCompleted, "completed", "ok"}
	case "budget_exhausted":
		return Ending{EndingExhausted, "budget exhausted", "warn"}
	case "cancelled":
		if detailOf(run).Landed {
			return Ending{EndingStopped, "stopped, work landed", "plain"}
		}
		return Ending{EndingStopped, "cancelled", "plain"}
	case "partial":
		return Ending{EndingPartial, "partial", "warn"}
	case StatusLost:
		return Ending{EndingLost, "lost", "warn"}
	case "failed", "refused":
		return Ending{EndingFailed, "failed", "bad"}
	}
	return Ending{EndingLive, "running", "busy"}
}
