# SPDX-License-Identifier: GPL-2.0
# Choose the QEMU accelerator by what works, not by what exists. Sourced.
#
# A /dev/kvm node can be there and still not run a guest: in a VM without
# nested virtualisation the CPU has no vmx/svm flag, and QEMU then either
# aborts ("failed to set MSR") or hangs without a line of output. So KVM is
# used only when the node is writable, the CPU advertises virtualisation,
# and a real guest (a boot sector that writes to QEMU's isa-debug-exit
# port) runs to the end under it. Everything else is TCG.
#
#   WQRT_VM_ACCEL     auto (default), kvm or tcg; a forced kvm that cannot
#                     run is an error, not a silent TCG run
#   WQRT_KVM_DEV      the KVM node (default /dev/kvm), for tests
#   WQRT_CPUINFO      the cpuinfo file (default /proc/cpuinfo), for tests
#   WQRT_QEMU         the QEMU binary (default qemu-system-x86_64)
#
# choose_accel sets ACCEL (kvm|tcg), ACCEL_CPU (the -cpu model to use with
# it) and ACCEL_REASON (one line, for the log), and returns 1 only when a
# forced accelerator cannot run (ACCEL_REASON says why).

# probe_guest ACCEL CPU: boot a 512-byte guest under ACCEL; succeed only if
# it ran its two instructions and asked QEMU to exit with code 3.
probe_guest() {
	local accel=$1 cpu=$2 img rc=0
	img=$(mktemp)
	# mov al, 1; out 0xf4, al; (hlt; jmp $-1) -- isa-debug-exit turns
	# the value 1 into QEMU's exit status (1 << 1) | 1 = 3.
	{
		printf '\xb0\x01\xe6\xf4\xf4\xeb\xfd'
		head -c 503 /dev/zero
		printf '\x55\xaa'
	} >"$img"
	# In a subshell: a QEMU that aborts must not make the shell report it.
	(timeout 20 "${WQRT_QEMU:-qemu-system-x86_64}" \
		-machine "pc,accel=$accel" -cpu "$cpu" -m 16 \
		-display none -monitor none -serial none -parallel none \
		-nodefaults -no-reboot \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-drive "file=$img,format=raw,if=floppy" -boot a \
		>/dev/null 2>&1) 2>/dev/null || rc=$?
	rm -f "$img"
	[ "$rc" = 3 ]
}

cpu_has_virt() {
	grep -qwE 'vmx|svm' "${WQRT_CPUINFO:-/proc/cpuinfo}" 2>/dev/null
}

# Why KVM cannot be used here, or nothing when it can.
kvm_unusable_reason() {
	local dev=${WQRT_KVM_DEV:-/dev/kvm}
	if [ ! -e "$dev" ]; then
		echo "there is no $dev"
	elif [ ! -w "$dev" ]; then
		echo "$dev is not writable by $(id -un)"
	elif ! cpu_has_virt; then
		echo "$dev exists but the CPU advertises no vmx/svm (no nested virtualisation)"
	elif ! probe_guest kvm host; then
		echo "a probe guest did not run under KVM"
	fi
}

choose_accel() {
	local why
	case "${WQRT_VM_ACCEL:-auto}" in
	tcg)
		ACCEL=tcg ACCEL_CPU=max
		ACCEL_REASON="forced by WQRT_VM_ACCEL=tcg"
		;;
	kvm)
		why=$(kvm_unusable_reason)
		if [ -n "$why" ]; then
			ACCEL= ACCEL_CPU=
			ACCEL_REASON="WQRT_VM_ACCEL=kvm, but KVM cannot run here: $why"
			return 1
		fi
		ACCEL=kvm ACCEL_CPU=host
		ACCEL_REASON="forced by WQRT_VM_ACCEL=kvm, and a probe guest ran"
		;;
	auto)
		why=$(kvm_unusable_reason)
		if [ -n "$why" ]; then
			ACCEL=tcg ACCEL_CPU=max ACCEL_REASON="TCG: $why"
		else
			ACCEL=kvm ACCEL_CPU=host
			ACCEL_REASON="KVM: the CPU has vmx/svm and a probe guest ran"
		fi
		;;
	*)
		ACCEL= ACCEL_CPU=
		ACCEL_REASON="WQRT_VM_ACCEL must be auto, kvm or tcg, not '${WQRT_VM_ACCEL}'"
		return 1
		;;
	esac
	return 0
}
