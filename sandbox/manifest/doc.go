// Package manifest reads what a repository declares, as host code must read
// a hostile workspace: files opened without following a link and bounded in
// size (ReadWorkspaceFile), and the manifests and lockfiles of the dependency
// steps parsed and checked (pyproject.toml, requirements files, pip's
// report, package-lock.json, Cargo.toml and Cargo.lock). It imports nothing
// of core's.
package manifest
