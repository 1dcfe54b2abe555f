# core's GitHub Action image. Built from pinned base images; nothing is
# downloaded by a piped script.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/core ./cmd/core

FROM golang:1.26-bookworm
# git for the workspace, bubblewrap for the sandbox, CA certificates for
# GitHub and the model endpoint; the Go toolchain (from the base image) for
# go build, go vet and go test.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/core /usr/local/bin/core
COPY action-entrypoint.sh /usr/local/bin/core-action-entrypoint
ENTRYPOINT ["/usr/local/bin/core-action-entrypoint"]
