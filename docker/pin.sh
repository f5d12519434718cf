#!/usr/bin/env bash
# Pins docker/Dockerfile's base images to their current digests: rewrites the
# ARG GO_IMAGE and ARG BASE_IMAGE defaults from name:tag to
# name:tag@sha256:..., so that a rebuild gets the same bytes. Needs a
# registry: skopeo (podman users) or docker buildx. Run it once online and
# commit the result; run it again to move to newer images.
#
#   docker/pin.sh           pin both images
#   docker/pin.sh --check   exit 1 if an image is not pinned to a digest
set -euo pipefail
cd "$(dirname "$0")"

digest() {
	if command -v skopeo >/dev/null 2>&1; then
		skopeo inspect --format '{{.Digest}}' "docker://$1"
	elif command -v docker >/dev/null 2>&1; then
		docker buildx imagetools inspect "$1" --format '{{json .Manifest.Digest}}' | tr -d '"'
	else
		echo "docker/pin.sh: needs skopeo or docker buildx to ask the registry for $1's digest" >&2
		exit 1
	fi
}

for arg in GO_IMAGE BASE_IMAGE; do
	image="$(sed -n "s/^ARG $arg=//p" Dockerfile)"
	[ -n "$image" ] || { echo "docker/pin.sh: no ARG $arg=... in docker/Dockerfile" >&2; exit 1; }
	if [ "${1:-}" = --check ]; then
		case "$image" in *@sha256:*) echo "$arg: $image" ;; *) echo "$arg: $image is not pinned to a digest: run docker/pin.sh" >&2; exit 1 ;; esac
		continue
	fi
	ref="${image%@*}"
	d="$(digest "$ref")"
	case "$d" in sha256:*) ;; *) echo "docker/pin.sh: no digest for $ref (got '$d')" >&2; exit 1 ;; esac
	sed -i "s|^ARG $arg=.*|ARG $arg=$ref@$d|" Dockerfile
	echo "$arg: $ref@$d"
done
