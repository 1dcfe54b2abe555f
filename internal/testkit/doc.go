// Package testkit holds what every test needs: the bound on every wait
// ([Patience], [Receive]), a private Go home ([GoHome]), files written from a
// map ([WriteFiles]), the skip of a test that needs root ([RequireRoot]) and
// a Postgres database when one is configured. The doubles that speak real
// protocols over real HTTP live below it, one job each: the model server in [github.com/coreagent/core/internal/testkit/llm],
// the in-memory GitHub in [github.com/coreagent/core/internal/testkit/ghfake]
// (and GitHub's REST API description its requests are checked against, in
// [github.com/coreagent/core/internal/testkit/openapi]),
// the package registries, the tripwire and the language repositories in
// [github.com/coreagent/core/internal/testkit/registry].
package testkit
