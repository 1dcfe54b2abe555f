// Package registry is what the tests of the dependency steps fetch from and
// watch: package registries on loopback served from files ([NewRegistry]:
// npm, a PEP 503 index with wheels and sdists whose build can phone home, a
// cargo registry; the machine's Debian pytest published there as wheels,
// [Registry.AddInstalledPytest]), a [Tripwire] that records every
// connection made to it, and a small repository of each language with a
// failing test ([LanguageRepos]).
package registry
