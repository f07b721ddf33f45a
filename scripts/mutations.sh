#!/usr/bin/env bash
# The mutation check (Tests/Mutations/): each mutation breaks one promise of the library, and the tests
# its filter names must then fail. Reports "killed N of M"; fails when a mutation survives or no longer
# applies. See scripts/mutations.py for the options and the mutation format.
#
#   scripts/mutations.sh                 every mutation (about 45 s each on 2 cores)
#   scripts/mutations.sh --rotate 6      six of them, chosen by the commit's hash (CI)
#   scripts/mutations.sh NAME ...        the named ones
#   scripts/mutations.sh --check         only check that each still applies to Sources/
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/mutations.py "$@"
