// Package gocache is the Go caches confined commands see: the user's
// caches, where the sandbox may see them; the module views (the module
// cache as far as the workspace's sum files name it); and the build cache:
// the cache program that serves it inside the sandbox (GOCACHEPROG, `core
// sandbox gocache`), the host's server of the user's build cache, and the
// layers (a writable one per run, a read-only one per repository that only
// the host fills, from commands that ran no workspace code) with their
// promotion and sweep.
package gocache
