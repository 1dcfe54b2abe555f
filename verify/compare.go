package verify

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/receipt"
)

// compare prints, check by check, whether this machine's run came out
// with the receipt's verdict: same, different (both verdicts and exits),
// or could not run (why). It reports whether every check came out the
// same. prefix names where the checks ran when it is not the receipt's
// result ("on the branch's head: ").
func compare(w io.Writer, want []receipt.Check, k *contract.Contract, prefix string) bool {
	same := true
	for _, ch := range want {
		i := slices.IndexFunc(k.Checks, func(r contract.CheckRun) bool { return slices.Equal(r.Command, ch.Argv) })
		name := strings.Join(ch.Argv, " ")
		if i < 0 {
			fmt.Fprintf(w, "%scould not run: %s — the checker did not run it\n", prefix, name)
			same = false
			continue
		}
		got := k.Checks[i]
		switch {
		case string(got.Verdict) == ch.Verdict:
			fmt.Fprintf(w, "%ssame: %s — %s (start exit %d, result exit %d)\n", prefix, name, ch.Verdict, got.Baseline.Exit, got.Result.Exit)
		case got.Verdict == contract.VerdictError:
			fmt.Fprintf(w, "%scould not run: %s — %s\n", prefix, name, why(got))
			same = false
		default:
			fmt.Fprintf(w, "%sdifferent: %s — the receipt says %s (start exit %d, result exit %d), this machine says %s (start exit %d, result exit %d)\n",
				prefix, name, ch.Verdict, ch.Start.Exit, ch.Result.Exit, got.Verdict, got.Baseline.Exit, got.Result.Exit)
			same = false
		}
	}
	return same
}

// why says why a check could not run, on the side where it could not.
func why(r contract.CheckRun) string {
	switch {
	case r.Result.Error != "":
		return "on the result: " + r.Result.Error
	case r.Baseline.Error != "":
		return "on the start commit: " + r.Baseline.Error
	}
	return "no reason given"
}
