# A toolchain image: the image of the sibling containers that run one
# ecosystem's commands under the Docker backend (README "Languages"), a
# Debian base with that ecosystem's Debian packages and nothing of core.
#
#   docker build -f docker/toolchain.Dockerfile \
#     --build-arg PACKAGES="python3 python3-pytest python3-pip" -t core-python docker/
#
# scripts/docker-images.sh builds one per language for make test-docker
# (python3 and pip; nodejs and npm; cargo and git), stand-ins for the
# official images, on the base image it made without a registry (BASE).
ARG BASE=debian:bookworm-slim
FROM ${BASE}
ARG PACKAGES=""
RUN test -n "${PACKAGES}" \
 && apt-get update \
 && apt-get install -y --no-install-recommends ${PACKAGES} \
 && rm -rf /var/lib/apt/lists/*
