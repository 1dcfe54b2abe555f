// Package receipt is the record of one contract that anyone can check: what
// ran, where, on which commits and trees, and how each check ended, in a
// canonical JSON whose SHA-256 names it. A receipt is written beside a
// session's report, carried by its check run on GitHub, and re-run by
// `core verify`.
package receipt
