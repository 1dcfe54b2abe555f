// Package lang is the table of the languages core verifies (Go, Python,
// Node.js, Rust, Flutter: one file each) and the policy of the verify
// tiers over it: which ecosystems a workspace is in (Detect), what each
// tier lets a command do and what runs only confined (Check, Allowed),
// and which commands of the repository's CI workflows are such checks
// (ChecksFromCI). Its rules are pure functions of their inputs; what needs
// the running sandbox (the toolchains, the dependency steps) the sandbox
// passes in.
package lang
