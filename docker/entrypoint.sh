#!/bin/sh
# The image's entrypoint (under tini, which forwards signals and reaps): the first argument picks
# the process, and exec makes node the process that receives SIGTERM.
#
#   api (default) | worker | migrate | admin <command> [--flag value] | any other command as given
set -e
cd "$(dirname "$0")/.."
command=${1:-api}
[ $# -gt 0 ] && shift
case "$command" in
  api | worker | migrate | admin) exec node --enable-source-maps "dist/$command.js" "$@" ;;
  *) exec "$command" "$@" ;;
esac
