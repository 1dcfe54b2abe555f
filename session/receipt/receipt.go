package receipt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Format is the version of the receipt's shape this core writes and reads.
// A receipt of a higher format was made by a newer core.
const Format = 1

// MaxSize bounds a receipt: what Parse reads, and what fits in a check
// run's text (65,535 characters) with its fence.
const MaxSize = 60 << 10

// Receipt is the record of one contract.
type Receipt struct {
	// Format is the receipt's shape (Format).
	Format int `json:"format"`
	// Core is the version of the core that made it (`core version`).
	Core string `json:"core"`
	// Repository is where the commits are: "owner/name" on GitHub, or
	// the path of a local repository.
	Repository string `json:"repository"`
	// Start is the commit the session started from; Result is the tree
	// the checks ran on and the commit that holds it (what landed).
	Start  Side `json:"start"`
	Result Side `json:"result"`
	// Branch is the branch the result landed on, when it landed on one: a
	// verifier compares its head's tree with Result's.
	Branch string `json:"branch,omitempty"`
	// Sandbox is how the checks were confined.
	Sandbox Sandbox `json:"sandbox"`
	// Verdict is the contract's verdict (held, broken, none, unjudged).
	Verdict string `json:"verdict"`
	// BuildCeilingSeconds bounds each check that compiled beyond its
	// timeout (0: no ceiling).
	BuildCeilingSeconds float64 `json:"build_ceiling_seconds,omitempty"`
	// Checks are the contract's checks, in the contract's order.
	Checks []Check `json:"checks"`
	// OutputsNotKept says the checks' outputs were gone when the receipt
	// was made (core session land of a run from before receipts): no
	// check names an output's hash, rather than the hash of nothing.
	OutputsNotKept bool `json:"outputs_not_kept,omitempty"`
}

// Side is a commit and its tree.
type Side struct {
	Commit string `json:"commit"`
	Tree   string `json:"tree"`
}

// Sandbox is the confinement the checks ran in.
type Sandbox struct {
	// Backend is "bwrap" or "docker".
	Backend string `json:"backend"`
	// Tier is the session's tier, which sets the profile.
	Tier string `json:"tier"`
	// Profile is the SHA-256 of the profile the checks ran under.
	Profile string `json:"profile"`
	// Toolchains are the versions of the tools the checks used, and
	// Images the digests of the images they ran in (Docker).
	Toolchains map[string]string `json:"toolchains,omitempty"`
	Images     map[string]string `json:"images,omitempty"`
}

// Check is one check of the contract and how it ended on each side.
type Check struct {
	Argv []string `json:"argv"`
	// Dir is the working directory, relative to the repository's root.
	Dir string `json:"dir"`
	// Env names the environment the check ran with (names, never values).
	Env    []string `json:"env"`
	Source string   `json:"source"`
	// TimeoutSeconds is the limit the check ran under.
	TimeoutSeconds float64 `json:"timeout_seconds"`
	Start          Run     `json:"start"`
	Result         Run     `json:"result"`
	// Verdict is the check's verdict (fixed, passing, regressed, ...).
	Verdict string `json:"verdict"`
}

// Run is how one run of a check ended.
type Run struct {
	Exit     int     `json:"exit"`
	Passed   bool    `json:"passed"`
	TimedOut bool    `json:"timed_out,omitempty"`
	Seconds  float64 `json:"seconds"`
	// Output is the SHA-256 of the output core kept of it; empty when
	// the outputs were not kept (Receipt.OutputsNotKept).
	Output string `json:"output,omitempty"`
	// Error says why it could not run.
	Error string `json:"error,omitempty"`
}

// Marshal is the receipt's canonical JSON: its fields in their declared
// order, no HTML escaping, no indentation, a final newline. The same
// receipt always gives the same bytes.
func (r *Receipt) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("receipt: %w", err)
	}
	if b.Len() > MaxSize {
		return nil, fmt.Errorf("receipt: %d bytes, more than the %d a receipt may hold", b.Len(), MaxSize)
	}
	return b.Bytes(), nil
}

// Hash names a receipt's bytes: "sha256:" and the hex digest.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ErrNewer is the error of a receipt made by a newer core.
var ErrNewer = errors.New("receipt made by a newer core")

// Parse reads a receipt. It refuses bytes that are not a receipt, a
// receipt of a newer format (ErrNewer), and one that is not in canonical
// form (edited by hand, or re-encoded): a receipt is checked by its bytes.
func Parse(data []byte) (*Receipt, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("receipt: %d bytes, more than the %d a receipt may hold", len(data), MaxSize)
	}
	var head struct {
		Format int `json:"format"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not a receipt: %w", err)
	}
	switch {
	case head.Format > Format:
		return nil, fmt.Errorf("%w: format %d, and this core reads format %d: upgrade core to verify it", ErrNewer, head.Format, Format)
	case head.Format < 1:
		return nil, errors.New("not a receipt: no format")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Receipt
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a receipt: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a receipt: more than one JSON value")
	}
	again, err := r.Marshal()
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(again, data) {
		return nil, errors.New("the receipt is not in canonical form: it was edited or re-encoded after core wrote it")
	}
	return &r, nil
}

// The fence a receipt is carried in, in a check run's text.
const (
	fenceOpen  = "```json core-receipt\n"
	fenceClose = "```\n"
)

// CheckText is a check run's text that carries the receipt's bytes.
func CheckText(data []byte) string {
	return fenceOpen + string(data) + fenceClose
}

// FromCheckText returns the receipt's bytes a check run's text carries.
func FromCheckText(text string) ([]byte, error) {
	_, rest, ok := strings.Cut(text, fenceOpen)
	if !ok {
		return nil, errors.New("the check run carries no receipt")
	}
	body, _, ok := strings.Cut(rest, "\n"+fenceClose)
	if !ok {
		return nil, errors.New("the check run's receipt is cut short")
	}
	return []byte(body + "\n"), nil
}

// summaryPrefix starts the line of a check run's summary, and of a pull
// request's contract table, that names the receipt.
const summaryPrefix = "Receipt: `"

// SummaryLine is the line that names a receipt by its hash.
func SummaryLine(hash string) string {
	return summaryPrefix + hash + "`"
}

// HashIn returns the hash the first receipt line in text names.
func HashIn(text string) (string, bool) {
	_, rest, ok := strings.Cut(text, summaryPrefix)
	if !ok {
		return "", false
	}
	h, _, ok := strings.Cut(rest, "`")
	if !ok || !strings.HasPrefix(h, "sha256:") || len(h) != len("sha256:")+64 {
		return "", false
	}
	return h, true
}
