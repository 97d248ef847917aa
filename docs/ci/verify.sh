#!/bin/sh
# nika verify for any CI system: prove, from git objects alone, that every
# commit a change brings is an applied nika proposal whose id, witnesses,
# parent and checker verdict hold.
#
#   sh docs/ci/verify.sh [BASE]
#
# BASE is the branch the change goes into (default: $NIKA_BASE, else
# origin/main). nika must be on PATH, or NIKA_VERSION names the module
# version (a tag) to go install. The commits checked are BASE..HEAD. Set NIKA_ALLOW_COMMITS=1
# to let ordinary commits (no Nika-Proposal trailer) through; by default they
# fail (exit 25). Set NIKA_FETCH_PROPOSALS=1 to also fetch the proposals
# published with nika push (refs/nika/proposals/*). Set NIKA_REQUIRE_SIGNED=1
# to require that every proposal is signed by an allowed key: the proof that
# a human consented (nika signs only after the yes); NIKA_ALLOWED_SIGNERS
# names the ssh allowed signers file (gpg.ssh.allowedSignersFile), relative
# to the work tree's root.
#
# Exit codes: 0 proven; otherwise nika's (docs/exit-codes.md): 20 tampered
# trailer, 21 amended tree, 22 wrong parent, 23 findings, 24 missing objects,
# 25 not a proposal, 26 corrupt object, 27 unsigned, 28 bad signature, 29 key
# not allowed.
set -eu

base="${1:-${NIKA_BASE:-origin/main}}"

if ! command -v nika >/dev/null 2>&1; then
	# Build nika from a pinned version, never from whatever is newest.
	if [ -z "${NIKA_VERSION:-}" ]; then
		echo "verify.sh: nika is not on PATH; install it, or set NIKA_VERSION to the module version to build (a tag)" >&2
		exit 127
	fi
	go install "github.com/nika-dev/nika/cmd/nika@$NIKA_VERSION"
	PATH="$(go env GOPATH)/bin:$PATH"
	export PATH
fi

# nika re-derives each proposal from its commit and its parent: a shallow
# clone lacks the parent of its oldest commit. Fetch the whole history.
if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
	git fetch --quiet --unshallow
fi

if [ "${NIKA_FETCH_PROPOSALS:-}" = 1 ]; then
	nika fetch
fi

if [ -n "${NIKA_ALLOWED_SIGNERS:-}" ]; then
	git config gpg.ssh.allowedSignersFile "$NIKA_ALLOWED_SIGNERS"
fi
signed=
if [ "${NIKA_REQUIRE_SIGNED:-}" = 1 ]; then
	signed=--require-signed
fi

if [ "${NIKA_ALLOW_COMMITS:-}" = 1 ]; then
	exec nika verify $signed "$base..HEAD"
fi
exec nika verify --require-all $signed "$base..HEAD"
