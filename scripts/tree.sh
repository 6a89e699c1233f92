#!/bin/bash
# Kernel source trees for the lab, under build/src (git-ignored):
#   linux       Debian linux-source-6.12 as commit + tag `base`, patches/series on top
#   linux-base  git worktree at `base` (the baseline kernel)
# The series is (re)applied with `git am` only when patches/ changed since the
# last apply (stamp = hash of the series files), so an unchanged series leaves
# every mtime alone and nothing rebuilds.
#
# usage: scripts/tree.sh            extract if needed, apply the series
#        scripts/tree.sh --export   regenerate patches/ from base..HEAD
set -eu
. "$(dirname "$0")/lib.sh"

PKG=linux-source-6.12
TARBALL=/usr/src/$PKG.tar.xz
# LAB_PATCHES: another patches/ folder (tests/harness.sh feeds it broken ones).
PATCHES=${LAB_PATCHES:-$LAB_ROOT/patches}
STAMP=$SRC/series.stamp

# pkg_version: installed Debian package version of the kernel source.
pkg_version() {
	dpkg-query -W -f '${Version}\n' "$PKG" 2>/dev/null || echo "not installed"
}

# series_files: patch file names from patches/series, in order (comments skipped).
series_files() {
	[ -f "$PATCHES/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$PATCHES/series" | grep -v '^$' || true
}

# series_hash: one hash over patches/series and every patch it names.
series_hash() {
	{
		[ -f "$PATCHES/series" ] && cat "$PATCHES/series"
		series_files | while read -r p; do cat "$PATCHES/$p"; done
	} | sha256sum | cut -d' ' -f1
}

# extract_tree: unpack the Debian tarball and commit it as `base`.
extract_tree() {
	[ -f "$TARBALL" ] || die "$TARBALL missing (apt-get install $PKG)"
	# The tree (1.4 GiB), its git objects (0.3 GiB), the baseline worktree (1.4 GiB).
	need_space "$SRC" 3500 "extracting $PKG"
	mkdir -p "$SRC"
	local tmp=$SRC/.extract.$$
	rm -rf "$tmp" && mkdir "$tmp"
	tar -C "$tmp" -xf "$TARBALL"
	mv "$tmp/$PKG" "$TREE" && rmdir "$tmp"
	pkg_version >"$SRC/VERSION"
	(
		cd "$TREE"
		git init -q -b master
		# Debian's top-level .gitignore is "/*": force-add the whole tree.
		git add -f .
		git -c user.name=lab -c user.email=lab@localhost \
			commit -q -m "Debian $PKG $(cat "$SRC/VERSION")"
		git tag base
	)
}

# ensure_base_worktree: build/src/linux-base checked out at `base`.
ensure_base_worktree() {
	[ -e "$BASE_TREE/.git" ] && return 0
	git -C "$TREE" worktree prune
	need_space "$BASE_TREE" 1600 "the baseline worktree build/src/linux-base"
	git -C "$TREE" worktree add -q --detach "$BASE_TREE" base
}

# conflict_files: files named by the failed `git am` (empty if unknown).
conflict_files() {
	{
		git -C "$TREE" diff --name-only --diff-filter=U 2>/dev/null
		sed -n 's/^error: patch failed: \([^:]*\):.*/\1/p; s/^error: \([^:]*\): does not exist in index/\1/p' "$1"
	} | sort -u | tr '\n' ' '
}

# am_error LOG: git am's first complaint, for the one-line error.
am_error() {
	{
		sed -n -e 's/^error: \(patch failed: .*\|corrupt patch .*\|.*does not exist in index\)/\1/p' \
			-e '/^CONFLICT/p' "$1"
		sed -n -e 's/^error: //p' -e 's/^fatal: //p' -e '/^Patch is empty/p' \
			-e '/^Patch format detection failed/p' "$1"
	} | head -n 1
}

# diffstat_mismatch PATCH: for a git format-patch file, "N files in the
# diffstat, M in the body" when the two differ (a truncated file can end on a
# file boundary, and git am would apply the first part without a word).
diffstat_mismatch() {
	local said body
	said=$(sed -n '/^---$/,/^diff --git /s/^ \([0-9][0-9]*\) files\{0,1\} changed.*/\1/p' "$1" | head -n 1)
	[ -n "$said" ] || return 1
	body=$(grep -c '^diff --git ' "$1" || true)
	[ "$said" != "$body" ] && echo "its diffstat names $said file(s), its body has $body"
}

# apply_series: reset the patched tree to `base` and `git am` every patch.
# A patch that does not apply stops it with one line (git's own output stays
# in build/src/am.log); the tree is left at the last patch that applied.
apply_series() {
	local p files why log=$SRC/am.log
	git -C "$TREE" checkout -q -f -B master base
	for p in $(series_files); do
		[ -f "$PATCHES/$p" ] || die "patches/series names $p, which does not exist"
		why=$(diffstat_mismatch "$PATCHES/$p") &&
			die "patch $p is truncated or damaged: $why; the tree is at the patch before it"
		if ! git -C "$TREE" -c user.name=lab -c user.email=lab@localhost \
			am -q --3way "$PATCHES/$p" >"$log" 2>&1; then
			files=$(conflict_files "$log")
			why=$(am_error "$log")
			git -C "$TREE" am --abort >/dev/null 2>&1 || true
			# Remember this HEAD as ours, so a fixed series may re-apply.
			printf 'failed\n%s\n' "$(git -C "$TREE" rev-parse HEAD)" >"$STAMP"
			die "patch $p does not apply: ${why:-git am failed}${files:+ (files: ${files% })} against $PKG $(pkg_version); git am log: ${log#"$LAB_ROOT"/}"
		fi
	done
}

# export_series: regenerate patches/NNNN-*.patch and series from base..HEAD,
# keeping the hand-written 0000-cover-letter.patch (a renamed patch's old
# file goes, whatever its number). Blank context lines are
# written empty and the "-- " signature left out, so no patch line ends in a
# space (checkpatch run on the files themselves calls that trailing
# whitespace); --zero-commit keeps a rebase from rewriting every file's
# first line.
export_series() {
	local out
	out=$(mktemp -d)
	git -C "$TREE" -c diff.suppressBlankEmpty=true format-patch -q \
		--no-signature --zero-commit --start-number 1 -o "$out" base..HEAD
	mkdir -p "$PATCHES"
	find "$PATCHES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
	cp "$out"/*.patch "$PATCHES"/ 2>/dev/null || true
	(cd "$out" && ls -- *.patch 2>/dev/null) >"$PATCHES/series" || true
	rm -rf "$out"
	printf '%s\n%s\n' "$(series_hash)" "$(git -C "$TREE" rev-parse HEAD)" >"$STAMP"
	say "exported $(wc -l <"$PATCHES/series") patch(es) to patches/"
}

# patch_ids FILE...|-: stable patch ids, one per patch, in order.
patch_ids() {
	git -C "$TREE" patch-id --stable | cut -d' ' -f1
}

# tree_matches_series: base..HEAD already is the series (same patch ids).
tree_matches_series() {
	local have want p id
	have=$(git -C "$TREE" log --reverse --format=%H base..HEAD |
		while read -r c; do git -C "$TREE" show "$c" | patch_ids; done)
	want=$(series_files | while read -r p; do
		id=$(patch_ids <"$PATCHES/$p")
		echo "${id:-no-patch-id:$p}"
	done)
	[ "$have" = "$want" ]
}

# tree_is_ours: HEAD is `base` or what the last apply left; anything else is a
# developer's own commits or edits, which a re-apply must not throw away.
tree_is_ours() {
	local head
	head=$(git -C "$TREE" rev-parse HEAD)
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] || return 1
	[ "$head" = "$(git -C "$TREE" rev-parse base)" ] && return 0
	[ -f "$STAMP" ] && [ "$(sed -n 2p "$STAMP")" = "$head" ]
}

main() {
	if [ "${1:-}" = --export ]; then
		export_series
		return
	fi
	[ -d "$TREE/.git" ] || timed "extract $TARBALL" extract_tree
	[ -f "$SRC/VERSION" ] || pkg_version >"$SRC/VERSION"
	ensure_base_worktree
	local want n
	want=$(series_hash)
	n=$(series_files | wc -l)
	if [ -f "$STAMP" ] && [ "$(sed -n 1p "$STAMP")" = "$want" ]; then
		say "series unchanged ($n patch(es)); tree left alone"
		return
	fi
	if tree_matches_series; then
		say "build/src/linux already has the $n patch(es) of patches/series as commits"
	elif tree_is_ours || [ "${LAB_FORCE_TREE:-0}" = 1 ]; then
		timed "apply $n patch(es) from patches/series" apply_series
	else
		die "build/src/linux has commits that are not patches/series: run 'make export-patches' to keep them, or LAB_FORCE_TREE=1 to reset the tree to patches/"
	fi
	printf '%s\n%s\n' "$want" "$(git -C "$TREE" rev-parse HEAD)" >"$STAMP"
}

main "$@"
