#!/bin/bash
# Write the .config of a kernel variant into its obj dir:
#   tinyconfig + kconfig/boot.config + kconfig/test.config + kconfig/net.config
#   [+ kconfig/debug.config (debug) | kconfig/thp.config (patched-thp,
#   baseline-thp)]
# merged with the tree's merge_config.sh (required options last), then
# olddefconfig. Every requested option must land, or this fails naming it;
# only symbols the tree does not define at all (e.g. the ladder KUnit test in
# the baseline, which the series adds) are skipped, with a note.
# .config is replaced only when the result differs, so nothing rebuilds
# when nothing changed.
#
# usage: scripts/kconfig.sh VARIANT
set -eu
. "$(dirname "$0")/lib.sh"

# fragments VARIANT: config fragments for a variant, in merge order.
fragments() {
	echo "$LAB_ROOT/kconfig/boot.config"
	echo "$LAB_ROOT/kconfig/test.config"
	echo "$LAB_ROOT/kconfig/net.config"
	case $1 in
	debug) echo "$LAB_ROOT/kconfig/debug.config" ;;
	*-thp) echo "$LAB_ROOT/kconfig/thp.config" ;;
	esac
}

# requested FRAGMENT...: "SYMBOL VALUE" per option (VALUE n = not set); a
# symbol set by more than one fragment takes the last one's value, as
# merge_config.sh does (thp.config turns on what net.config leaves off).
requested() {
	sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)/\1 \2/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1 n/p' "$@" |
		awk '!($1 in v) { k[++n] = $1 } { v[$1] = $2 } END { for (i = 1; i <= n; i++) print k[i], v[k[i]] }'
}

# known_symbols SRC: every Kconfig symbol the tree defines.
known_symbols() {
	find "$1" -name 'Kconfig*' -not -path '*/.git/*' -print0 |
		xargs -0 sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]*\).*/CONFIG_\2/p' |
		sort -u
}

# verify CONFIG SRC FRAGMENT...: every requested option landed in CONFIG.
verify() {
	local cfg=$1 src=$2 sym val bad=0 known
	shift 2
	known=$(known_symbols "$src")
	while read -r sym val; do
		if ! grep -qx "$sym" <<<"$known"; then
			say "note: $sym is not a Kconfig symbol in $(basename "$src"); skipped"
			continue
		fi
		if [ "$val" = n ]; then
			grep -q "^$sym=" "$cfg" || continue
		else
			grep -qxF "$sym=$val" "$cfg" && continue
		fi
		echo "kconfig: requested $sym=$val did not land; got: $(grep -E "^(# )?${sym}[= ]" "$cfg" || echo 'absent (unmet dependency?)')" >&2
		bad=1
	done < <(requested "$@")
	return "$bad"
}

# config_is_current OBJ SRC FRAGMENT...: the last merge (OBJ/.config.lab-stamp)
# is newer than .config, every fragment, this script and every Kconfig file
# of the tree, so merging again would give the same result (saves ~20 s on a
# no-op build).
config_is_current() {
	local stamp=$1/.config.lab-stamp src=$2 f
	shift 2
	[ -f "$stamp" ] || return 1
	for f in "$1/.config" "$@" "$0"; do
		[ "$stamp" -nt "$f" ] || return 1
	done
	[ -z "$(find "$src" -path "$src/.git" -prune -o -name 'Kconfig*' -newer "$stamp" -print -quit)" ]
}

main() {
	local variant=${1:?usage: kconfig.sh VARIANT} src obj new
	src=$(variant_src "$variant")
	obj=$OBJ/$variant
	new=.config.lab
	mkdir -p "$obj"
	mapfile -t frags < <(fragments "$variant")
	if config_is_current "$obj" "$src" "${frags[@]}"; then
		say "$variant: .config up to date"
		return
	fi
	kmake "$src" "$obj" -s KCONFIG_CONFIG="$new" tinyconfig >/dev/null
	(cd "$obj" && KCONFIG_CONFIG=$new "$src/scripts/kconfig/merge_config.sh" -m "$new" "${frags[@]}" >/dev/null)
	kmake "$src" "$obj" -s KCONFIG_CONFIG="$new" olddefconfig >/dev/null
	verify "$obj/$new" "$src" "${frags[@]}" || die "config for $variant is missing requested options (see above)"
	if cmp -s "$obj/$new" "$obj/.config"; then
		rm -f "$obj/$new"
		say "$variant: .config unchanged"
	else
		mv "$obj/$new" "$obj/.config"
		say "$variant: .config written ($(grep -c '=[ym]$' "$obj/.config") options on)"
	fi
	touch "$obj/.config.lab-stamp"
}

main "$@"
