// Package ghfake is the GitHub double of the tests: an in-memory GitHub
// speaking GitHub's REST and GraphQL APIs and git over HTTP against real
// bare repositories. The App side (apps, installations and their tokens,
// the OAuth web and device flows, the manifest flow) is added by
// internal/testkit/ghapps through the extension point (HandleAPI,
// HandleOwnAuthAPI, HandleWeb), which reaches the double through its
// exported API: tokens that expire ([GitHub.AddExpiringToken]; GET /user
// refuses them, as GitHub does installation tokens), [GitHub.ReposOf],
// [Repo.RaiseRole], [Repo.Wire], [GitHub.SeesAccount], [GitHub.Record].
// Check runs are kept by internal/testkit/ghfake/checks and the Git Data
// API by internal/testkit/ghfake/gitdata, each under its own lock and
// served by the double through the [Call] it hands each request;
// [GitHub.AddCheckRun] and [GitHub.CheckRuns] stay on the double.
//
// [NewGitHub] (for Go tests) and [ServeGitHub] (for scripts) start an
// in-memory GitHub. Its REST API answers under [GitHub.APIURL] (URL +
// "/api/v3", as on an Enterprise Server, where go-github's
// WithEnterpriseURLs(URL+"/", URL+"/") sends requests) and at the bare paths,
// with GitHub's JSON shapes, error bodies, Link pagination (per_page default
// 30, at most 100), X-GitHub-Request-Id and rate-limit headers. git smart
// HTTP is served under URL + "/git/owner/name.git" ([Repo.CloneURL]) by the
// real git http-backend from bare repositories on disk ([Repo.Dir]), with
// partial clone enabled.
//
// Every API and git request needs a token registered with
// [GitHub.AddToken]: the API answers 401 "Requires authentication" or "Bad
// credentials", git 401 with WWW-Authenticate: Basic realm="GitHub". git
// takes the token as the password of Basic credentials (user
// x-access-token), or as "Bearer" or "token". Permissions follow GitHub:
// the owner is admin, others have the role [GitHub.SetPermission] gave them,
// anyone may read a public repository, a private one is 404 to the rest.
// Pushes and workflow dispatches need write; labels, and editing someone
// else's issue, need triage; editing or deleting someone else's comment or
// editing their pull request needs write; a refusal is 403.
//
// Endpoints (R is /repos/{owner}/{repo}):
//
//	GET    /user
//	GET    R                                        permissions are the token's
//	GET    R/branches/{branch}                      404 "Branch not found"
//	GET    R/collaborators/{user}/permission        permission, role_name
//	POST   R/actions/workflows/{file}/dispatches    the file must exist on ref and
//	                                                have a workflow_dispatch trigger
//	GET    R/issues                                 state, labels, creator, since,
//	                                                sort, direction; lists pull requests too
//	POST   R/issues
//	GET    R/issues/{n}
//	PATCH  R/issues/{n}
//	GET    R/issues/{n}/comments                    since
//	POST   R/issues/{n}/comments
//	GET    R/issues/comments/{id}
//	PATCH  R/issues/comments/{id}
//	DELETE R/issues/comments/{id}
//	GET    R/issues/{n}/reactions                   content
//	POST   R/issues/{n}/reactions                   201 new, 200 repeated
//	GET    R/issues/comments/{id}/reactions         content
//	POST   R/issues/comments/{id}/reactions         201 new, 200 repeated
//	GET    R/issues/{n}/labels
//	POST   R/issues/{n}/labels
//	DELETE R/issues/{n}/labels/{name}               404 "Label does not exist"
//	GET    R/pulls                                  state, head (owner:branch; a bare
//	                                                branch is ignored, as on GitHub),
//	                                                base, sort, direction
//	POST   R/pulls                                  422 "Validation Failed" as GitHub:
//	                                                missing field, unknown head or base,
//	                                                no commits between, already exists
//	GET    R/pulls/{n}                              head.sha is the branch's tip now
//	PATCH  R/pulls/{n}
//
// Anything else answers 404 {"message": "Not Found"}. Issues and pull
// requests share one number space. Every request is recorded
// ([GitHub.Requests]); state accessors ([GitHub.Issue], [GitHub.Pulls],
// [GitHub.Comments], [GitHub.Reactions], [GitHub.Dispatches], ...) serve
// assertions, and [GitHub.AddIssue], [GitHub.AddComment], [GitHub.AddPull]
// and [Repo.Commit] seed state.
package ghfake
