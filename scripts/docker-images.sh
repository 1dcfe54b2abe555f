#!/usr/bin/env bash
# Prepares the Docker part of CI without any registry: starts dockerd when no
# engine answers, makes the base image the Dockerfile's FROM lines name
# (golang:1.26-bookworm) from a debootstrap'd Debian and this machine's Go
# toolchain, and builds the Action's image from the real Dockerfile.
#
#   scripts/docker-images.sh [IMAGE] [PYTHON_IMAGE] [NODE_IMAGE] [RUST_IMAGE] [BROWSER_IMAGE]
#       (defaults core-action:ci, core-python:ci, core-node:ci, core-rust:ci,
#       core-browser:ci)
#
# PYTHON_IMAGE, NODE_IMAGE and RUST_IMAGE are toolchain images
# (docker/toolchain.Dockerfile), stand-ins for the official images the
# Action names by default (which no registry serves here), for the Docker
# backend's dependency step and toolchain tests: Debian's python3, pytest
# and pip; nodejs and npm; cargo, and git (Debian's cargo fetches a git
# index over plain HTTP with the git command). One image per language, as
# the Action has them, so the tests see each language's commands go to its
# own image; one image with both would save only one apt-get update of the
# two builds (Node.js 63 s, Rust 49 s, measured alone), and they build
# side by side (they wait on the mirror more than on the CPU).
# BROWSER_IMAGE is one more (python3 and chromium, 45 s alone): the
# Docker backend's box with --browser, Chromium beside a dev server
# (session's TestBrowserSessionDocker). Each is cached by its
# Dockerfile's hash and packages: rebuilt only when those change.
#
# The debootstrap'd root filesystem is cached as a tarball under .cache/docker
# (ignored by git), so reruns take seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:-core-action:ci}
python_image=${2:-core-python:ci}
node_image=${3:-core-node:ci}
rust_image=${4:-core-rust:ci}
browser_image=${5:-core-browser:ci}
cache=.cache/docker
base=golang:1.26-bookworm
goroot=${GOROOT_FOR_IMAGE:-/usr/local/go}
mkdir -p "$cache"

# The Debian mirror apt already uses on this machine.
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}

if ! docker info >/dev/null 2>&1; then
	command -v dockerd >/dev/null || { echo "dockerd is missing: apt-get install docker.io" >&2; exit 1; }
	echo "starting dockerd (no bridge, no iptables: containers here use --network host or none)" >&2
	nohup dockerd --bridge=none --iptables=false --ip6tables=false >"$cache/dockerd.log" 2>&1 &
	for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
	docker info >/dev/null 2>&1 || { echo "dockerd did not start; its log:" >&2; tail -20 "$cache/dockerd.log" >&2; exit 1; }
fi

if ! docker image inspect "$base" >/dev/null 2>&1; then
	rootfs_tar=$cache/bookworm-minbase.tar
	if [ ! -s "$rootfs_tar" ]; then
		command -v debootstrap >/dev/null || { echo "debootstrap is missing: apt-get install debootstrap" >&2; exit 1; }
		dir=$(mktemp -d)
		echo "debootstrap --variant=minbase bookworm from $mirror" >&2
		debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$cache/debootstrap.log" 2>&1 \
			|| { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
		rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
		tar -C "$dir" -cf "$rootfs_tar.tmp" . && mv "$rootfs_tar.tmp" "$rootfs_tar"
		rm -rf "$dir"
	fi
	gover=$("$goroot/bin/go" env GOVERSION)
	echo "importing $base: Debian bookworm minbase + $gover from $goroot" >&2
	work=$(mktemp -d)
	tar -C "$work" -xf "$rootfs_tar"
	mkdir -p "$work/usr/local" "$work/go"
	cp -a "$goroot" "$work/usr/local/go"
	# This machine's trust: its CA bundle for the build stage, and its local
	# CAs (an egress proxy's) for update-ca-certificates when the Dockerfile
	# installs ca-certificates.
	mkdir -p "$work/etc/ssl/certs" "$work/usr/local/share/ca-certificates"
	cp /etc/ssl/certs/ca-certificates.crt "$work/etc/ssl/certs/"
	cp /usr/local/share/ca-certificates/*.crt "$work/usr/local/share/ca-certificates/" 2>/dev/null || true
	tar -C "$work" -c . | docker import \
		--change 'ENV PATH=/usr/local/go/bin:/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'ENV GOPATH=/go' \
		--change "ENV GOLANG_VERSION=${gover#go}" \
		--change 'WORKDIR /go' \
		--change 'CMD ["bash"]' \
		- "$base" >/dev/null
	rm -rf "$work"
fi

# The toolchain images, side by side, each rebuilt only when its Dockerfile
# or its packages changed.
toolchain_image() { # NAME IMAGE PACKAGES
	local key
	key=$( (cat docker/toolchain.Dockerfile; echo "$3") | sha256sum | cut -c1-16)
	if [ "$(docker image inspect --format '{{index .Config.Labels "core.ci.tree"}}' "$2" 2>/dev/null)" = "$key" ]; then
		return 0
	fi
	echo "building $2 from docker/toolchain.Dockerfile (build log: $cache/$1-build.log)" >&2
	docker build --network host --build-arg "BASE=$base" --build-arg "PACKAGES=$3" --label "core.ci.tree=$key" \
		-t "$2" -f docker/toolchain.Dockerfile docker/ >"$cache/$1-build.log" 2>&1 \
		|| { tail -30 "$cache/$1-build.log" >&2; return 1; }
}
toolchain_image python "$python_image" "python3 python3-pip" &
python_build=$!
toolchain_image node "$node_image" "nodejs npm" &
node_build=$!
toolchain_image rust "$rust_image" "cargo git" &
rust_build=$!
toolchain_image browser "$browser_image" "python3 chromium" &
browser_build=$!
failed=""
wait "$python_build" || failed="$failed $python_image"
wait "$node_build" || failed="$failed $node_image"
wait "$rust_build" || failed="$failed $rust_image"
wait "$browser_build" || failed="$failed $browser_image"
[ -z "$failed" ] || { echo "building the toolchain images failed:$failed" >&2; exit 1; }

# The image is rebuilt only when the tree changed: its label holds a key of
# the commit and of every uncommitted change.
key=$( (git rev-parse HEAD; git status --porcelain; git diff HEAD) 2>/dev/null | sha256sum | cut -c1-16)
if [ "$(docker image inspect --format '{{index .Config.Labels "core.ci.tree"}}' "$image" 2>/dev/null)" = "$key" ]; then
	echo "$image is up to date with the tree ($key)" >&2
	echo "$image"
	exit 0
fi
echo "building $image from the Dockerfile (build log: $cache/build.log)" >&2
old=$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
docker build --network host --build-arg "GO_IMAGE=$base" --label "core.ci.tree=$key" -t "$image" . >"$cache/build.log" 2>&1 \
	|| { tail -30 "$cache/build.log" >&2; exit 1; }
# Disk: drop the image this build replaced and the untagged leftovers of
# builds older than half an hour (this build's cached layers stay: they are
# parents of images still in use).
if [ -n "$old" ] && [ "$old" != "$(docker image inspect --format '{{.Id}}' "$image")" ]; then
	docker rmi "$old" >/dev/null 2>&1 || true
fi
docker image prune -f --filter "until=30m" >/dev/null 2>&1 || true
echo "$image"
