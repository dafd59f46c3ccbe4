#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: what `make check` runs, stage by stage. Every stage records
# "passed failed skipped" in build/results/STAGE; a stage that cannot run
# (a build that failed) counts as one failure. The closing line adds all
# stages up: "check: N passed, N failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
results=build/results
mkdir -p "$results"
make_q=(make --no-print-directory)

# Each stage's wall time goes to build/results/times.log (and the closing
# summary): what a fresh CI machine spends where, against its budget.
check_start=$SECONDS stage_start=$SECONDS stage_name=
stage_done() {
	[ -n "$stage_name" ] &&
		printf '%5d s  %s\n' $((SECONDS - stage_start)) "$stage_name" >>"$results/times.log"
	stage_start=$SECONDS
}
stage() {
	stage_done
	stage_name=$1
	echo
	echo "=== check: $1 ($((SECONDS - check_start)) s in) ==="
}

record() { # STAGE PASSED FAILED [SKIPPED]
	echo "$2 $3 ${4:-0}" >"$results/$1"
}

stage deps
if ! scripts/deps.sh; then
	record deps 0 1
	echo "check: 0 passed, 1 failed"
	exit 1
fi

stage "daemon unit tests (cmocka, plain and ASan/UBSan builds)"
log=build/results/daemon-unit.log
"${make_q[@]}" daemon-test 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
# cmocka (CMOCKA_MESSAGE_OUTPUT=TAP in daemon/Makefile) and the command-line
# checks of wqrtd/wqrtctl against a fake root (cli.sh, ktap.sh) speak TAP:
# count their ok / not ok lines; a program that died before its plan was
# done counts the rest as failed.
read -r p f < <(awk '/^1\.\.[0-9]+$/ {sub(/^1\.\./, ""); plan += $0}
	/^ok / {p++} /^not ok / {f++}
	END {if (plan > p + f) f += plan - p - f; print p + 0, f + 0}' "$log")
[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
record daemon-unit "$p" "$f"

stage "make install / uninstall as a user or a packager runs them"
log=$results/install.log
scripts/test-install.sh 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
p=$(grep -cE '^ok ' "$log")
f=$(grep -cE '^not ok ' "$log")
[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
record install "$p" "$f"

stage "fuzz: each libFuzzer target of wqrtd's parsers for 30 s"
log=$results/fuzz.log
"${make_q[@]}" fuzz FUZZ_SECONDS=30 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
p=$(grep -c 'execs, no finding$' "$log")
f=$(grep -c ': FINDING' "$log")
[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
record fuzz "$p" "$f"

stage "harness: the QEMU accelerator choice, the arm64 console's host end, the VM verdict (host side), the benchmarks' quiet-host check, boot verdicts and price model"
log=$results/harness.log
selftests/vm/test-accel.sh >"$log"
rc=$?
selftests/vm/test-uart-peer.sh >>"$log" || rc=1
selftests/vm/test-verdict.sh >>"$log" || rc=1
selftests/bench/test-quiet.sh >>"$log" || rc=1
selftests/bench/test-lib.sh >>"$log" || rc=1
selftests/bench/test-price.sh >>"$log" || rc=1
selftests/bench/gpu-submit/test-stats.sh >>"$log" || rc=1
selftests/bench/imu/test-imu-feed.sh >>"$log" || rc=1
selftests/bench/imu/test-imu-trace.sh >>"$log" || rc=1
! command -v busybox >/dev/null ||
	AWK="busybox awk" selftests/bench/imu/test-imu-trace.sh >>"$log" || rc=1
selftests/bench/test-shipped-profile.sh >>"$log" || rc=1
selftests/bench/board/test-board.sh >>"$log" || rc=1
cat "$log"
p=$(grep -cE '^ok ' "$log")
f=$(grep -cE '^not ok ' "$log")
[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
record harness "$p" "$f"

stage "man pages (mandoc -Tlint)"
if mandoc -Tlint -W warning man/*.[0-9]; then
	record man "$(ls man/*.[0-9] | wc -l)" 0
else
	record man 0 1
fi

stage "checkpatch --strict"
if "${make_q[@]}" checkpatch; then
	# the series, the fixes to its base and the test-only variants; the
	# cover letter is no patch
	record checkpatch "$(cat kernel/series <(ls kernel/stable/*.patch kernel/variants/*/*.patch 2>/dev/null) | grep -c .)" 0
else
	record checkpatch 0 1
fi

# The patched kernel (x86_64, a kernel build of some 20 minutes on a fresh
# 2-core machine) and, as the kernel without the series, Debian's own
# linux-image-6.12-rt-amd64 from the archive (no build: what a board runs
# before it builds anything, kernel/scripts/debian-kernel.sh). The
# self-built 6.12 without the series (KERNEL=plain: the test kernel's
# configuration, lockdep and the debug options Debian's lacks, and the
# fixes of kernel/stable) is run by hand, as are the arm64 test kernel
# (make vm-test KERNEL=test-arm64: 26 minutes more) and test-kasan
# (docs/tests.md). Each kernel's suite is judged against its column of
# selftests/vm/expected (the programs, their counts, the skips allowed).
for k in test debian-rt; do
	stage "VM tests on the $k kernel"
	rm -f "build/vm/$k-selftests/tap.log.result"
	"${make_q[@]}" vm-test KERNEL=$k
	if [ -f "build/vm/$k-selftests/tap.log.result" ]; then
		cp "build/vm/$k-selftests/tap.log.result" "$results/vm-$k"
	else
		record "vm-$k" 0 1
	fi
done

stage "a deliberate stall ends a VM run within a minute, its report in the verdict"
log=$results/stall.log
selftests/vm/test-stall.sh test 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
p=$(grep -cE '^ok ' "$log")
f=$(grep -cE '^not ok ' "$log")
[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
record stall "$p" "$f"

stage "Debian packages: make deb (amd64 and arm64), lintian on every .deb, their content"
# A package passes when lintian finds no error and no warning in it (what
# cannot be fixed is overridden in debian/*.lintian-overrides, with why).
lint_debs() { # DIR: lintian on each .deb of DIR, counted in p and f
	local deb
	for deb in "$1"/*.deb; do
		echo "lintian $deb" >>"$log"
		if lintian --fail-on error,warning --info "$deb" >>"$log" 2>&1; then
			p=$((p + 1))
		else
			f=$((f + 1))
			echo "lintian: $deb has errors or warnings (above)" >>"$log"
		fi
	done
}
log=$results/lintian.log
if "${make_q[@]}" deb >"$log" 2>&1; then
	p=0 f=0
	lint_debs build/deb
	[ $((p + f)) -gt 0 ] || f=1
	# the same packages cross-built for an arm64 board: lintian-clean, and
	# their programs are arm64 (ELF e_machine 183)
	if DEB_HOST_ARCH=arm64 scripts/deb.sh >>"$log" 2>&1; then
		lint_debs build/deb-arm64
		x=$(mktemp -d)
		dpkg-deb -x build/deb-arm64/wqrtd_*_arm64.deb "$x"
		dpkg-deb -x build/deb-arm64/wqrt-selftests_*_arm64.deb "$x"
		for bin in "$x"/usr/sbin/wqrtd "$x"/usr/sbin/wqrtctl \
			"$x"/usr/lib/wqrt-selftests/wqrt/wq_rt_attrs; do
			m=$(od -An -tu2 -j18 -N2 "$bin" 2>/dev/null | tr -d ' ')
			if [ "$m" = 183 ]; then
				p=$((p + 1))
			else
				f=$((f + 1))
				echo "arm64 .deb: ${bin#"$x"} is not an arm64 program (e_machine ${m:-?})" >>"$log"
			fi
		done
		rm -rf "$x"
	else
		f=$((f + 1))
		echo "make deb DEB_HOST_ARCH=arm64 failed (above)" >>"$log"
	fi
	# what lintian does not see: conffile, unit, layout, a dkms build
	# (after the VM tests: the dkms build needs the test kernel)
	scripts/test-deb.sh build/deb build/kernel-test >"$results/deb.log" 2>&1
	rc=$?
	cat "$results/deb.log" >>"$log"
	p=$((p + $(grep -cE '^ok ' "$results/deb.log")))
	n=$(grep -cE '^not ok ' "$results/deb.log")
	[ "$rc" = 0 ] || [ "$n" -gt 0 ] || n=1
	f=$((f + n))
	record lintian "$p" "$f"
else
	record lintian 0 1
fi
cat "$log"

stage "kselftests in a kernel tree: make -C tools/testing/selftests TARGETS=wqrt install"
log=$results/ktree.log
selftests/vm/test-ktree.sh build/kernel-test 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
p=$(grep -E '^ok ' "$log" | grep -cv '# SKIP')
s=$(grep -E '^ok ' "$log" | grep -c '# SKIP')
f=$(grep -cE '^not ok ' "$log")
[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
record ktree "$p" "$f" "$s"

stage "board config: kernel/configs/board.config on x86_64 and arm64 defconfig"
log=$results/board-config.log
selftests/vm/test-board-config.sh build/kernel-test 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
p=$(grep -cE '^ok ' "$log")
f=$(grep -cE '^not ok ' "$log")
[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
record board-config "$p" "$f"

stage "board kernel: make board-kernel up to the package build, amd64 and arm64"
log=$results/board-kernel.log
selftests/vm/test-board-kernel.sh 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
p=$(grep -cE '^ok ' "$log")
f=$(grep -cE '^not ok ' "$log")
[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
record board-kernel "$p" "$f"

stage "e2e: the user's day with systemd as PID 1 on the test kernel"
rm -f build/vm/test-e2e/tap.log.result
"${make_q[@]}" e2e KERNEL=test
if [ -f build/vm/test-e2e/tap.log.result ]; then
	cp build/vm/test-e2e/tap.log.result "$results/e2e"
else
	record e2e 0 1
fi

stage "e2e: the fallback path on Debian's own RT kernel, wqrtd's package alone (first-hour.sh)"
rm -f build/vm/debian-rt-e2e/tap.log.result
"${make_q[@]}" e2e KERNEL=debian-rt
if [ -f build/vm/debian-rt-e2e/tap.log.result ]; then
	cp build/vm/debian-rt-e2e/tap.log.result "$results/e2e-debian-rt"
else
	record e2e-debian-rt 0 1
fi

stage_done
echo
echo "=== check: time per stage ($((SECONDS - check_start)) s in all) ==="
cat "$results/times.log"
echo
echo "=== check: summary ==="
total_p=0 total_f=0 total_s=0
for r in "$results"/*; do
	case "$r" in *.log) continue ;; esac
	read -r p f s <"$r"
	printf '  %-14s %4d passed, %d failed, %d skipped\n' "$(basename "$r")" "$p" "$f" "$s"
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
done
echo "check: $total_p passed, $total_f failed"
[ "$total_f" = 0 ]
