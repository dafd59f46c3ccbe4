#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# deps-graph.sh [--objs DIR] [--dot] [DAEMON_DIR]
#
# The daemon's house drawn from its own code (DAEMON_DIR: daemon/ of this
# tree). A module is a C file with its header (config.c and config.h), or
# a header alone; module A uses module B when a file of A has
# `#include "B.h"`, and, with --objs DIR (a build's object files, as
# make -C daemon deps-graph passes them), when A's object needs a symbol
# that B's object defines (nm: undefined in one, defined in the other).
#
# Printed, for the modules of the code (not tests/ nor fuzz/):
#   - the floors: floor 0 uses no other module, every other module sits
#     one floor above the highest one it uses, with what it uses;
#   - the circles: modules that use each other round (a cycle);
#   - the uses that run back up: a use of a module on the same floor or a
#     higher one, which only a circle makes;
# and, for every module with its tests and fuzz targets, the uses that
# its folder's rule does not allow: the folders named `like/this/` on the
# "May use:" line of the folder's README.md (the folder itself is always
# allowed; FOLDER/tests/ may use what FOLDER may, FOLDER itself, and
# daemon/tests/, the test kit).
#
# --dot prints the graph for graphviz instead (dot -Tsvg).
#
# Exit status: 0, or 1 when there is a circle, a use that runs back up or
# a use against a folder's rule; 2 on a usage error.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
objs='' dot=''
while [ $# -gt 0 ]; do
	case "$1" in
	--objs) objs=${2:?--objs needs a directory}; shift 2 ;;
	--dot) dot=1; shift ;;
	-h|--help) sed -n '3,/^set -e/p' "$0" | sed 's/^# \{0,1\}//; /^set -e/d'; exit 0 ;;
	-*) echo "deps-graph.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
dir=${1:-$top/daemon}
[ -d "$dir" ] || { echo "deps-graph.sh: $dir: no such directory" >&2; exit 2; }
dir=$(cd "$dir" && pwd)
[ -z "$objs" ] || [ -d "$objs" ] || { echo "deps-graph.sh: --objs $objs: no such directory" >&2; exit 2; }

# The C files and headers, relative to dir, in name order
files=$(cd "$dir" && find . -name '*.[ch]' -type f | sed 's|^\./||' | LC_ALL=C sort)

{
	# M MODULE FOLDER KIND FILE: one line per file (a module's two files
	# give it twice)
	for f in $files; do
		case "/$f" in
		*/tests/* | */fuzz/*) kind='test' ;;
		*) kind='code' ;;
		esac
		case "$f" in
		*/*) folder=${f%/*} ;;
		*) folder=. ;;
		esac
		printf 'M\t%s\t%s\t%s\t%s\n' "${f%.[ch]}" "$folder" "$kind" "$f"
	done
	# I FILE HEADER: what each file includes with quotes
	# shellcheck disable=SC2086 # one word per file
	(cd "$dir" || exit; grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files || true) |
		sed 's/^\([^:]*\):[^"]*"\([^"]*\)".*/I\t\1\t\2/; s|\t[^\t]*/\([^/\t]*\)$|\t\1|'
	# R FOLDER ALLOWED...: the rule of each folder with a README.md: the
	# folders named `like/this/` on its "May use:" line
	for f in $files; do
		case "$f" in
		*/*) echo "${f%/*}" ;;
		*) echo . ;;
		esac
	done | LC_ALL=C sort -u | while read -r folder; do
		readme=$dir/$folder/README.md
		[ -f "$readme" ] || continue
		# shellcheck disable=SC2016 # backquotes, not an expansion
		allowed=$(sed -n '/^May use:/{p;q;}' "$readme" |
			{ grep -o '`[^`]*/`' || true; } |
			tr -d '`' | sed 's|^daemon/||; s|/$||' | tr '\n' ' ')
		printf 'R\t%s\t%s\n' "$folder" "$allowed"
	done
	# D OBJECT SYMBOL / U OBJECT SYMBOL: what each object defines, needs
	if [ -n "$objs" ]; then
		o=$(find "$objs" -name '*.o' -type f | LC_ALL=C sort)
		if [ -n "$o" ]; then
			# shellcheck disable=SC2086 # one word per object
			nm -A -g --defined-only $o | awk '{sub(/:.*/, "", $1); n = split($1, p, "/");
				sub(/\.o$/, "", p[n]); if (NF == 3) print "D\t" p[n] "\t" $3}'
			# shellcheck disable=SC2086
			nm -A -u $o | awk '{sub(/:.*/, "", $1); n = split($1, p, "/");
				sub(/\.o$/, "", p[n]); print "U\t" p[n] "\t" $NF}'
		fi
	fi
} | awk -F '\t' -v dot="$dot" -v objs="$objs" -v dir="$dir" '
function add_edge(a, b, how) {
	if (a == b || !(a in kind) || !(b in kind))
		return
	if (!((a, b) in why)) {
		why[a, b] = how
		adj[a, ++nadj[a]] = b
	} else if (index(" " why[a, b] " ", " " how " ") == 0) {
		why[a, b] = why[a, b] " " how
	}
}
# the folder rule of module m allows a use of module t
function allowed(m, t,    f, g, base, list) {
	f = folder[m]
	g = folder[t]
	if (f == g)
		return 1
	base = f
	if (f ~ /(^|\/)tests$/ && f != "tests")
		sub(/\/tests$/, "", base)
	if (!(base in rule) && !(f in rule))
		return 1
	if (g == base || (base != f && g == "tests"))
		return 1
	list = " " ((f in rule) ? rule[f] : rule[base]) " "
	return index(list, " " g " ") > 0
}
# depth-first: the uses to a module on the stack close a circle
function dfs(u,    i, v) {
	state[u] = 1
	for (i = 1; i <= nadj[u]; i++) {
		v = adj[u, i]
		if (kind[v] != "code")
			continue
		if (state[v] == 1)
			back[u, v] = 1
		else if (!state[v])
			dfs(v)
	}
	state[u] = 2
}
function floor_of(u,    i, v, f, best) {
	if (u in fl)
		return fl[u]
	best = 0
	for (i = 1; i <= nadj[u]; i++) {
		v = adj[u, i]
		if (kind[v] != "code" || ((u, v) in back))
			continue
		f = floor_of(v) + 1
		if (f > best)
			best = f
	}
	fl[u] = best
	return best
}
function reach_from(s, u,    i, v) {
	for (i = 1; i <= nadj[u]; i++) {
		v = adj[u, i]
		if (kind[v] != "code" || ((s, v) in reach))
			continue
		reach[s, v] = 1
		reach_from(s, v)
	}
}
$1 == "M" {
	if (!($2 in kind)) {
		order[++n] = $2
		kind[$2] = $4
		folder[$2] = $3
	}
	file[$5] = $2
	nb = split($5, parts, "/")
	leaf = parts[nb]
	if (leaf ~ /\.h$/) {
		if ((leaf in header) && header[leaf] != $2)
			dup_header[leaf] = 1
		header[leaf] = $2
	} else {
		sub(/\.c$/, "", leaf)
		cfile[leaf] = $2
	}
	next
}
$1 == "I" {
	if ($3 in header)
		add_edge(file[$2], header[$3], "#" $3)
	next
}
$1 == "R" { rule[$2] = $3; next }
$1 == "D" { if ($2 in cfile) def[$3] = cfile[$2]; next }
$1 == "U" { if ($2 in cfile) need[++nneed] = cfile[$2] "\t" $3; next }
END {
	for (i = 1; i <= nneed; i++) {
		split(need[i], nu, "\t")
		if (nu[2] in def)
			add_edge(nu[1], def[nu[2]], nu[2])
	}
	for (h in dup_header)
		printf "deps-graph: %s: more than one header of that name\n", h
	ncode = 0
	for (i = 1; i <= n; i++) {
		u = order[i]
		if (kind[u] != "code")
			continue
		ncode++
		if (!state[u])
			dfs(u)
	}
	top = 0
	for (i = 1; i <= n; i++)
		if (kind[order[i]] == "code" && floor_of(order[i]) > top)
			top = floor_of(order[i])
	for (i = 1; i <= n; i++)
		if (kind[order[i]] == "code")
			reach_from(order[i], order[i])
	if (dot != "") {
		print "digraph daemon {"
		print "\trankdir=BT; node [shape=box, fontname=monospace];"
		for (i = 1; i <= n; i++) {
			u = order[i]
			if (kind[u] != "code")
				continue
			printf "\t\"%s\" [label=\"%s\\nfloor %d\"];\n", u, u, fl[u]
			for (j = 1; j <= nadj[u]; j++)
				if (kind[adj[u, j]] == "code")
					printf "\t\"%s\" -> \"%s\"%s;\n", u, adj[u, j],
						((u, adj[u, j]) in back) ? " [color=red]" : ""
		}
		print "}"
		exit 0
	}
	printf "daemon/: %d modules of code in %d floors (uses: #include lines%s)\n",
		ncode, top + 1, objs != "" ? " and the symbols of " objs : " only"
	for (f = top; f >= 0; f--) {
		printf "floor %d:\n", f
		for (i = 1; i <= n; i++) {
			u = order[i]
			if (kind[u] != "code" || fl[u] != f)
				continue
			line = ""
			for (k = 1; k <= n; k++)
				if (((u, order[k]) in why) && kind[order[k]] == "code")
					line = line " " order[k]
			printf "  %-24s%s\n", u, line == "" ? "" : " ->" line
		}
	}
	bad = 0
	# circles: the modules each one reaches and is reached from
	ncirc = 0
	for (i = 1; i <= n; i++) {
		u = order[i]
		if (kind[u] != "code" || !((u, u) in reach) || (u in incirc))
			continue
		members = ""
		for (k = 1; k <= n; k++) {
			v = order[k]
			if (kind[v] == "code" && ((u, v) in reach) && ((v, u) in reach)) {
				incirc[v] = 1
				members = members " " v
			}
		}
		circ[++ncirc] = substr(members, 2)
	}
	printf "circles: %d\n", ncirc
	for (c = 1; c <= ncirc; c++) {
		nm_ = split(circ[c], cm, " ")
		printf "  %s\n", circ[c]
		for (a = 1; a <= nm_; a++)
			for (b = 1; b <= nm_; b++)
				if ((cm[a], cm[b]) in why)
					printf "    %s -> %s: %s\n", cm[a], cm[b], why[cm[a], cm[b]]
		bad = 1
	}
	nback = 0
	for (i = 1; i <= n; i++)
		for (k = 1; k <= n; k++)
			if ((order[i], order[k]) in back)
				list_back[++nback] = order[i] " -> " order[k] " (floor " fl[order[i]] " to " fl[order[k]] "): " why[order[i], order[k]]
	printf "uses that run back up a floor: %d\n", nback
	for (i = 1; i <= nback; i++)
		printf "  %s\n", list_back[i]
	if (nback)
		bad = 1
	nrule = 0
	for (i = 1; i <= n; i++) {
		u = order[i]
		for (j = 1; j <= nadj[u]; j++)
			if (!allowed(u, adj[u, j]))
				list_rule[++nrule] = u " -> " adj[u, j] ": " why[u, adj[u, j]]
	}
	nr = 0
	for (r in rule)
		nr++
	printf "uses against a folder'"'"'s rule (%d folders with one): %d\n", nr, nrule
	for (i = 1; i <= nrule; i++)
		printf "  %s\n", list_rule[i]
	if (nrule)
		bad = 1
	for (h in dup_header)
		bad = 1
	exit bad
}'
