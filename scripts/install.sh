#!/bin/sh
# Install nika and git-nika (so that `git nika VERB` works) with go install,
# and their man pages (so that `man nika` and `git nika --help` work).
#
#   ./scripts/install.sh            # binaries in $(go env GOBIN) or $(go env GOPATH)/bin,
#                                   # man pages in ~/.local/share/man/man1
#   MANDIR=/usr/local/share/man ./scripts/install.sh
set -eu
cd "$(dirname "$0")/.."
go install -buildvcs=auto ./cmd/nika ./cmd/git-nika
bindir=$(go env GOBIN)
[ -n "$bindir" ] || bindir="$(go env GOPATH)/bin"
mandir="${MANDIR:-${HOME}/.local/share/man}/man1"
mkdir -p "$mandir"
cp docs/man/nika.1 docs/man/git-nika.1 "$mandir/"
echo "installed nika and git-nika in $bindir, their man pages in $mandir"
case ":$PATH:" in
*":$bindir:"*) ;;
*) echo "add $bindir to PATH to run them" ;;
esac
