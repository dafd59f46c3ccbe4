#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-abi.sh: the series' ABI file documents a workqueue's sysfs directory
# as the series' kernel/workqueue.c makes it.
#
# With kernel/stable and kernel/series applied (in a private index of the
# base repository, no tree is touched or built):
#  - every file of a workqueue directory (wq_sysfs_attrs[] and
#    wq_sysfs_unbound_attrs[] in kernel/workqueue.c) has a "What:" entry
#    /sys/devices/virtual/workqueue/<wq>/FILE, and every such entry names
#    a file that exists;
#  - every entry has Date:, KernelVersion: and Description:;
#  - no entry has a Contact: (the maintainers listed in MAINTAINERS for
#    the file are the contact; nobody agreed to another one).
# Prints one line per problem and exits 1 if there is any.

. "$(dirname "$0")/common.sh"

abi_path=Documentation/ABI/testing/sysfs-devices-virtual-workqueue

BASE_REPO=$(base_repo)
mapfile -t patches < <(stable_patches; series_patches)
top=$(commit_patches base "${patches[@]}")
src=$(git -C "$BASE_REPO" show "$top:kernel/workqueue.c")
abi=$(git -C "$BASE_REPO" show "$top:$abi_path" 2>/dev/null) ||
	die "check-abi: the series has no $abi_path"

# The files of a workqueue directory: the attributes every workqueue in
# sysfs has, and those of unbound (and ordered) ones.
mapfile -t files < <(awk '
	/^static struct attribute \*wq_sysfs_attrs\[\] = \{/ { a = 1; next }
	/^static struct device_attribute wq_sysfs_unbound_attrs\[\] = \{/ { u = 1; next }
	(a || u) && /^\};/ { a = u = 0 }
	a && match($0, /&dev_attr_[a-z_]+\.attr/) {
		print substr($0, RSTART + 10, RLENGTH - 15)
	}
	u && match($0, /__ATTR\([a-z_]+,/) {
		print substr($0, RSTART + 7, RLENGTH - 8)
	}
' <<<"$src")
[ "${#files[@]}" -gt 0 ] ||
	die "check-abi: no workqueue sysfs attributes found in kernel/workqueue.c"

bad=0
problem() {
	echo "check-abi: $abi_path: $*"
	bad=1
}

# One record per entry: "FILE<TAB>fields present", FILE empty for entries
# that are not about a workqueue's own directory.
mapfile -t entries < <(awk '
	function flush() {
		if (what != "")
			printf "%s\t%s\n", what, fields
		what = ""; fields = ""
	}
	/^What:/ {
		flush()
		what = $2
		sub(/^\/sys\/devices\/virtual\/workqueue\/<[^>]*>\//, "", what)
		if (what == $2 || what == "" || what ~ /\//)
			what = "-"
		next
	}
	/^(Date|KernelVersion|Contact|Description|Users):/ {
		f = $1; sub(/:$/, "", f); fields = fields " " f
	}
	END { flush() }
' <<<"$abi")

declare -A documented=()
for e in "${entries[@]}"; do
	file=${e%%$'\t'*}
	fields=" ${e#*$'\t'} "
	[ "$file" = - ] && file="(another path)"
	for f in Date KernelVersion Description; do
		[[ "$fields" == *" $f "* ]] || problem "the entry for $file has no $f:"
	done
	[[ "$fields" != *" Contact "* ]] || problem "the entry for $file has a Contact:"
	documented[$file]=1
done

for f in "${files[@]}"; do
	if [ -n "${documented[$f]:-}" ]; then
		unset "documented[$f]"
	else
		problem "no entry for /sys/devices/virtual/workqueue/<wq>/$f"
	fi
done
for f in "${!documented[@]}"; do
	[ "$f" = "(another path)" ] ||
		problem "an entry for $f, which kernel/workqueue.c does not create"
done

if [ "$bad" = 0 ]; then
	echo "check-abi: $abi_path documents all ${#files[@]} files of a workqueue directory: ${files[*]}"
fi
exit "$bad"
