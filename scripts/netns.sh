#!/usr/bin/env bash
# Runs a command inside a private network namespace that has only loopback,
# with multicast routed to it, so no DDS packet can leave this machine
# (recipe: shared/notes/ros2-interop.md). Needs root or user namespaces.
#   scripts/netns.sh <command> [args...]
set -euo pipefail
if [ "$#" -eq 0 ]; then echo "usage: $0 <command> [args...]" >&2; exit 2; fi
exec unshare -n -- bash -c 'ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo && exec "$@"' netns "$@"
