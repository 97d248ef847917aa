#!/usr/bin/env bash
# Runs nika's main job on a small example: a fresh repository from
# testdata/repos/demo, a model's reply proposed against it, and the apply,
# which asks for your "yes" on the terminal.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
bin="$work/bin/nika"
echo "building nika into $bin"
(cd "$here" && go build -o "$bin" ./cmd/nika)
repo="$work/demo"
mkdir -p "$repo"
cp -R "$here/testdata/repos/demo/." "$repo/"
cd "$repo"
git init -q -b main
git add -A
git -c user.name="${GIT_AUTHOR_NAME:-nika demo}" -c user.email="${GIT_AUTHOR_EMAIL:-demo@example.com}" commit -q -m "the demo project"
git config user.name >/dev/null || git config user.name "nika demo"
git config user.email >/dev/null || git config user.email "demo@example.com"
echo "demo repository: $repo"
echo
echo "\$ nika propose --goal 'greet the world, add a daily digest' demo-reply.md"
"$bin" propose --goal "greet the world, add a daily digest" "$here/testdata/repos/demo-reply.md" | tee "$work/preview.txt"
id=$(sed -n 's/^proposal *\([0-9a-f]\{12\}\).*/\1/p' "$work/preview.txt" | head -n1)
echo
echo "\$ nika apply $id"
if "$bin" apply "$id"; then
  echo
  echo "\$ git log -1 --stat"
  git log -1 --stat
fi
