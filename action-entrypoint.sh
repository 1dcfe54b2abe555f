#!/bin/sh
# The Action's entrypoint: the checkout in /github/workspace belongs to
# another user than the container's, so mark it safe for git, then run core.
set -eu
git config --global --add safe.directory "${GITHUB_WORKSPACE:-/github/workspace}"
exec /usr/local/bin/core "$@"
