# core's GitHub Action image; nothing is downloaded by a piped script.
# GO_IMAGE names the base image by tag: a release (.github/workflows/
# release.yml) resolves it to a digest, builds from golang@sha256:..., records
# that digest in the image's labels, and pins the tag's action.yml to the
# pushed image by digest. CI builds from a base image it made itself, without
# a registry (scripts/docker-images.sh).
ARG GO_IMAGE=golang:1.26-bookworm

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/core ./cmd/core

FROM ${GO_IMAGE}
# git for the workspace, bubblewrap for the sandbox (on a runner VM), CA
# certificates for GitHub and the model endpoint; the Go toolchain (from the
# base image) for go build, go vet and go test. Inside a Docker action bwrap
# cannot make namespaces; core then confines commands in sibling containers
# of this same image through the Docker socket the runner mounts.
# The other languages' commands run in sibling containers of a toolchain
# image each (the Action's toolchain_images input, official images by
# default, pulled only for a repository in that language;
# docs/languages.md; docker/toolchain.Dockerfile builds one from Debian's
# packages), so this image carries Go only and starts fast. TOOLCHAINS
# still adds Debian packages for one image that carries them all (name it
# in sandbox_image, and toolchain_images python=none node=none rust=none). (Add chromium for
# the browser input: it runs in the run's box, a sibling container of this
# image for a Go repository.)
ARG TOOLCHAINS=""
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap git ca-certificates ${TOOLCHAINS} \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/core /usr/local/bin/core
COPY action-entrypoint.sh /usr/local/bin/core-action-entrypoint
ENTRYPOINT ["/usr/local/bin/core-action-entrypoint"]
