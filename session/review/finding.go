package review

import "github.com/coreagent/core/session/testclass"

// Finding is one thing the model says is wrong with the pull request, and
// what the harness made of it. Only the harness sets Confirmed: a finding
// is confirmed when its reproduction, run by the harness in a scratch copy
// of the head, failed there with the output it predicts (and did not on
// the base); the model's words alone confirm nothing.
type Finding struct {
	// File and Line are where the finding points on the head: a
	// repository-relative path and a 1-based line of the head's version
	// (the right side of the diff). Line 0 points at no line.
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Claim is the model's words: what is wrong and what it causes.
	Claim string `json:"claim"`
	// Reproduction is the model's proof and the harness's runs of it; nil
	// when the model gave none.
	Reproduction *Reproduction `json:"reproduction,omitempty"`
	// Confirmed is the harness's verdict.
	Confirmed bool `json:"confirmed"`
	// Why says in one sentence why the finding is or is not confirmed.
	Why string `json:"why"`
}

// Reproduction is a test or script the model wrote, the command that runs
// it, the output it predicts on the head, and what the harness saw.
type Reproduction struct {
	// Path is where the file goes, repository-relative, in a scratch copy
	// of the head (and of the base); Content is the file.
	Path    string `json:"path"`
	Content string `json:"content"`
	// Command is the argv the harness runs at the copy's root.
	Command []string `json:"command"`
	// Expect is text the head's output must contain for the finding to
	// be confirmed: the failure the finding predicts.
	Expect string `json:"expect"`
	// Head and Base are the harness's runs; nil when it did not run
	// (the file or the command was refused: Finding.Why says why).
	Head *Ran `json:"head,omitempty"`
	Base *Ran `json:"base,omitempty"`
}

// Ran is one side's run of a reproduction.
type Ran struct {
	Exit     int     `json:"exit"`
	Passed   bool    `json:"passed"`
	TimedOut bool    `json:"timed_out,omitempty"`
	Seconds  float64 `json:"seconds"`
	// Excerpt is the output's lines that matter (around Expect's first
	// match, else the last ones), at most 20 lines, scrubbed.
	Excerpt string `json:"excerpt"`
	// OutputHash is "sha256:<hex>" of the whole kept output.
	OutputHash string `json:"output_hash,omitempty"`
	// Matched is set when the whole kept output (not only the excerpt)
	// contains the reproduction's Expect.
	Matched bool `json:"matched,omitempty"`
	// Error says why it could not run: the environment's failure, not the
	// code's; such a run confirms nothing.
	Error string `json:"error,omitempty"`
}

// Report is what a review run adds to its report.json (key "review"): the
// findings, confirmed and not, and the classification of the pull
// request's own tests.
type Report struct {
	Findings []Finding                 `json:"findings"`
	Tests    *testclass.Classification `json:"tests,omitempty"`
}
