// Package openapi checks requests against GitHub's REST API description
// (npm @octokit/openapi, fetched by scripts/fixtures.sh into
// .fixtures/openapi): [Description.Validate] checks a request's JSON body
// against the JSON schema of its operation's requestBody, found by method
// and path template, and [RequireValid] checks every request a test made
// to the GitHub double. It validates the subset of JSON Schema the
// description uses: $ref, type, nullable, properties, required,
// additionalProperties, enum, items, minItems, maxItems, minLength,
// maxLength, pattern, minimum, maximum, oneOf, anyOf and allOf.
package openapi
