#!/bin/bash
# Keep one bench/run.sh results folder in the repository and show it in the
# README: copies the report files and the raw result channels (one
# compressed archive) of SRC into bench/results/NAME, then rewrites the
# README's block between "<!-- results NAME begin -->" and
# "<!-- results NAME end -->" (added at the end of the Results section if
# missing) with that folder's table, noise floor and frontier. Nothing in
# that block is typed by hand.
#
# usage: bench/publish.sh SRC NAME [TITLE]
set -eu
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/../scripts/lib.sh"

[ $# -ge 2 ] || die "usage: bench/publish.sh SRC NAME [TITLE]"
src=$1 name=$2 title=${3:-$2}
if [ ! -f "$src/table.md" ] || [ ! -f "$src/manifest.tsv" ]; then
	die "$src is not a bench/run.sh results folder (no table.md or manifest.tsv)"
fi
case $name in
*/* | '' | .*) die "NAME '$name' must be a plain folder name" ;;
esac
dst=$BENCH/results/$name
rm -rf "$dst"
mkdir -p "$dst"
for f in manifest.tsv runs.csv summary.csv table.txt table.md noise.txt frontier.txt \
	frontier.csv fastpath.tsv frontier.png free-ge3.png; do
	[ -f "$src/$f" ] && cp "$src/$f" "$dst/"
done
(cd "$src" && tar -cJf "$dst/raw-results.tar.xz" ./*.result)

# block: the README text for this folder.
block() {
	local rel=bench/results/$name
	echo "<!-- results $name begin -->"
	echo "### $title"
	echo
	echo "From \`$rel\` (\`bench/publish.sh\`; raw result channels in"
	echo "\`raw-results.tar.xz\`, one row per run in \`runs.csv\`, every metric with its"
	echo "interval in \`summary.csv\`). Command: \`$(sed -n 's/^command\t//p' "$dst/manifest.tsv")\`."
	echo
	cat "$dst/table.md"
	echo
	echo '```'
	cat "$dst/noise.txt"
	echo '```'
	echo
	echo '```'
	cat "$dst/frontier.txt"
	echo '```'
	[ -f "$dst/fastpath.tsv" ] && { echo; echo '```'; cat "$dst/fastpath.tsv"; echo '```'; }
	echo
	echo "![the main failure count against each cost]($rel/frontier.png)"
	[ -f "$dst/free-ge3.png" ] && echo "![free blocks >= order 3 over one run]($rel/free-ge3.png)"
	echo "<!-- results $name end -->"
}

readme=$LAB_ROOT/README.md
tmp=$(mktemp)
block >"$tmp.block"
if grep -q "^<!-- results $name begin -->$" "$readme"; then
	awk -v b="<!-- results $name begin -->" -v e="<!-- results $name end -->" -v f="$tmp.block" '
		$0 == b { while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0; next }
		!skip' "$readme" >"$tmp"
else
	grep -q '^<!-- results end -->$' "$readme" ||
		die "README.md has no '<!-- results end -->' line to add the block before"
	awk -v f="$tmp.block" '
		$0 == "<!-- results end -->" { while ((getline l < f) > 0) print l; print ""; }
		{ print }' "$readme" >"$tmp"
fi
mv "$tmp" "$readme"
rm -f "$tmp.block"
say "bench/results/$name written; README.md block '$name' updated"
