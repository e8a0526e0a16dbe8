#!/usr/bin/env bash
# check_corpus.sh GEN_CORPUS: the committed seeds are what gen_corpus writes.
#
# The seeds are real messages of the fuzz pair: after a change to the
# handshake, the wire format or the control family, seeds made before it
# stop reaching the code they were made for (a handshake seed the receiver
# now refuses tests only the refusal). gen_corpus writes the same bytes
# every time, so a seed that differs is stale. The corpus also holds seeds
# and crash reproducers that gen_corpus does not write; they are left alone.
set -u
cd "$(dirname "$0")/../.."
GEN=${1:?usage: check_corpus.sh GEN_CORPUS}
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT

"$GEN" "$fresh" >/dev/null || { echo "$GEN failed"; exit 1; }
n=0 stale=0
while IFS= read -r seed; do
	name=${seed#"$fresh"/}
	n=$((n + 1))
	if ! cmp -s "$seed" "tests/fuzz/corpus/$name"; then
		if [ -e "tests/fuzz/corpus/$name" ]; then
			echo "tests/fuzz/corpus/$name differs from what gen_corpus writes"
		else
			echo "tests/fuzz/corpus/$name is not committed, and gen_corpus writes it"
		fi
		stale=$((stale + 1))
	fi
done < <(find "$fresh" -type f | sort)

if [ "$stale" -gt 0 ]; then
	echo "$stale of $n seeds are stale; once the change that moved them is meant, write them again:"
	echo "  $GEN tests/fuzz/corpus"
	exit 1
fi
echo "$n seeds as gen_corpus writes them"
