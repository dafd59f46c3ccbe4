#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make flush-mutation) on the flush-nosync kernel: the
# series with the work color sync of a re-listed pwq taken out
# (kernel/variants/flush-nosync). wq_flush must catch the lost wait: some
# flush returns before a work item queued before it has finished. The
# test's own output is shown as TAP comments; the verdict is inverted here.

echo "TAP version 13"
echo "1..1"
cd /usr/lib/wqrt/selftests || { echo "not ok 1 no selftests"; exit 1; }
./wq_flush >/tmp/flush.out 2>&1
rc=$?
sed 's/^/# /' /tmp/flush.out
# the tests that failed, and the module's lines that counted late items
failed=$(sed -n 's/^not ok [0-9]* \(flush\.[a-z_]*\).*/\1/p' /tmp/flush.out | tr '\n' ' ')
late=$(grep -o 'mode=[a-z]* wq=[a-z]* .* late=[1-9][0-9]*' /tmp/flush.out |
	sed 's/^\(mode=[a-z]* wq=[a-z]*\) .* \(late=[0-9]*\)$/\1 \2/' | tr '\n' ';')
if [ "$rc" != 0 ] && [ -n "$late" ]; then
	echo "ok 1 wq_flush caught the lost wait without the color sync: failed ${failed:-?}($late)"
	exit 0
fi
echo "not ok 1 wq_flush did not catch the missing color sync (exit $rc, failed: ${failed:-none})"
exit 1
