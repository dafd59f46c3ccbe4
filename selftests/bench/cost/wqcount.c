// SPDX-License-Identifier: GPL-2.0
/*
 * wqcount - a QEMU TCG plugin that counts what a piece of guest code costs,
 * independently of the host: instructions, atomic read-modify-writes, full
 * fences, and the cache lines it touches that another vCPU wrote last.
 *
 * The guest opens and closes counting windows with marker instructions that
 * nothing else emits: nopl DISP32(%rax), encoded 0f 1f 80 <disp32>, with
 * DISP32 = 0x57510000 | CMD << 12 | BUCKET (selftests/bench/wqrt_bench.c,
 * WQC_*). CMD 1 opens a global window (every vCPU counts into BUCKET until
 * CMD 2), CMD 3 a local one (only the vCPU that ran the marker, until it
 * runs CMD 4). A global and a local window may be open at once, each with
 * its own bucket.
 *
 * Counted per window, for the vCPU that opened it ("op") and for the others
 * ("other", global windows only):
 *   insns    guest instructions executed
 *   atomics  x86 locked read-modify-writes: a LOCK prefix, or XCHG with a
 *            memory operand (implicitly locked); every one is also a full
 *            barrier on x86
 *   fences   MFENCE, LFENCE, SFENCE
 *   wlines   stores to a cache line (64 bytes, by physical address) that
 *            another vCPU holds: wrote last or read since; the line moves
 *   rlines   loads of a line that another vCPU wrote last and this one has
 *            not read since: the line is copied over
 *   apic     WRMSR instructions and stores to the local APIC's page
 *            (0xfee00000): IPIs and timer programming, which exit to the
 *            hypervisor in a VM and are costly under TCG (without the
 *            coherence model only WRMSR)
 *   halts    HLT instructions: the vCPU went idle
 * wlines and rlines model coherence with unbounded caches: a cold miss is
 * not counted, a line bouncing between vCPUs is, on every bounce.
 *
 * At exit the plugin prints, through qemu_plugin_outs() (-d plugin -D FILE):
 *   "W BUCKET SIDE insns N atomics N fences N wlines N rlines N" per window
 *   and side, and
 *   "H BUCKET SIDE KIND PC CALLSITE COUNT": where the atomics, fences and
 *   line transfers happened (the guest PC, and the call site that entered
 *   the function it is in, from a shadow call stack), summed over windows;
 *   for insns, the first PC of each translation block executed, with
 *   CALLSITE 0.
 * selftests/bench/cost/cost-stats.py turns them into tables with symbols.
 *
 * Plugin arguments: lines=off skips the coherence model (no memory
 * callbacks: the guest runs faster). Counting assumes a single TCG thread
 * (-accel tcg,thread=single), so that the callbacks never run concurrently
 * and the interleaving of the vCPUs is QEMU's round robin.
 *
 * Written against QEMU 7.2's plugin API (version 1); the few declarations it
 * needs are below, so that no QEMU headers are required to build it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU 7.2 plugin API, version 1: the parts used here ---- */

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_plugin_hwaddr;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index,
					  qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw,
				      void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info,
						  uint64_t vaddr);
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr);
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* ---- markers ---- */

#define WQC_MAGIC	0x57510000u
#define WQC_MAGIC_MASK	0xffff0000u
#define WQC_GLOBAL_OPEN	1
#define WQC_GLOBAL_CLOSE 2
#define WQC_LOCAL_OPEN	3
#define WQC_LOCAL_CLOSE	4
#define NR_BUCKETS	4096
#define MAX_VCPUS	8
#define LINE_SHIFT	6
#define APIC_PAGE	(0xfee00000u >> 12)
/* physical memory the coherence model covers: the bench VMs have 1 GiB */
#define MAX_PHYS	(4ull << 30)

enum metric { M_INSNS, M_ATOMICS, M_FENCES, M_WLINES, M_RLINES, M_APIC,
	      M_HALTS, NR_METRICS };
static const char *const metric_name[NR_METRICS] = {
	"insns", "atomics", "fences", "wlines", "rlines", "apic", "halts",
};
enum side { SIDE_OP, SIDE_OTHER, NR_SIDES };
static const char *const side_name[NR_SIDES] = { "op", "other" };

/* a window being counted: global (all vCPUs) or local (one vCPU) */
struct window {
	bool open;
	unsigned int bucket;
	unsigned int opener;
	uint64_t count[NR_SIDES][NR_METRICS];
};

static struct window global_win;
static struct window local_win[MAX_VCPUS];

/* the closed windows, printed at exit */
struct row {
	unsigned int bucket;
	uint64_t count[NR_SIDES][NR_METRICS];
	bool global;
};
static struct row *rows;
static size_t nr_rows, rows_cap;

/* where atomics, fences and line transfers happened */
struct hist_key {
	unsigned int bucket;
	unsigned int side;
	unsigned int metric;
	uint64_t pc;
	uint64_t callsite;
};
struct hist_ent {
	struct hist_key key;
	uint64_t count;
	bool used;
};
static struct hist_ent *hist;
static size_t hist_size = 1 << 16, hist_used;

/* a shadow call stack per vCPU, for the call site of a function */
#define SHADOW_DEPTH 256
static uint64_t shadow[MAX_VCPUS][SHADOW_DEPTH];
static unsigned int shadow_top[MAX_VCPUS];

/* coherence: per cache line, the set of vCPUs with a copy and who wrote last */
static uint8_t *line_holders;
static int8_t *line_writer;
static bool track_lines = true;

/* what the plugin learned about an instruction when translating it */
enum insn_kind { K_PLAIN, K_ATOMIC, K_FENCE, K_CALL, K_RET, K_MARKER,
		 K_WRMSR, K_HLT };
struct insn_info {
	uint64_t pc;
	enum insn_kind kind;
	unsigned int cmd, bucket;
};

static void hist_add(const struct hist_key *k, uint64_t n)
{
	size_t i, h;

	if (hist_used * 2 >= hist_size) {
		struct hist_ent *old = hist;
		size_t old_size = hist_size;

		hist_size *= 2;
		hist = calloc(hist_size, sizeof(*hist));
		if (!hist)
			abort();
		hist_used = 0;
		for (i = 0; i < old_size; i++)
			if (old[i].used)
				hist_add(&old[i].key, old[i].count);
		free(old);
	}
	h = (k->pc * 0x9e3779b97f4a7c15ull) ^ (k->callsite * 31) ^
	    ((uint64_t)k->bucket << 20) ^ (k->metric << 4) ^ k->side;
	for (i = h & (hist_size - 1);; i = (i + 1) & (hist_size - 1)) {
		if (!hist[i].used) {
			hist[i].used = true;
			hist[i].key = *k;
			hist[i].count = n;
			hist_used++;
			return;
		}
		if (!memcmp(&hist[i].key, k, sizeof(*k))) {
			hist[i].count += n;
			return;
		}
	}
}

static uint64_t callsite_of(unsigned int vcpu)
{
	unsigned int t = shadow_top[vcpu];

	return t ? shadow[vcpu][(t - 1) % SHADOW_DEPTH] : 0;
}

/* count @n of @m for @vcpu in every open window it belongs to */
static void account(unsigned int vcpu, enum metric m, uint64_t n, uint64_t pc)
{
	struct hist_key k = { .metric = m, .pc = pc };

	if (vcpu >= MAX_VCPUS)
		return;
	/*
	 * Instructions are kept by the translation block's first PC alone:
	 * by call site too, they would be most of the histogram.
	 */
	if ((global_win.open || local_win[vcpu].open) && m != M_INSNS)
		k.callsite = callsite_of(vcpu);
	if (global_win.open) {
		k.side = vcpu == global_win.opener ? SIDE_OP : SIDE_OTHER;
		global_win.count[k.side][m] += n;
		k.bucket = global_win.bucket;
		hist_add(&k, n);
	}
	if (local_win[vcpu].open) {
		local_win[vcpu].count[SIDE_OP][m] += n;
		k.side = SIDE_OP;
		/* local buckets are kept apart from global ones */
		k.bucket = local_win[vcpu].bucket + NR_BUCKETS;
		hist_add(&k, n);
	}
}

static void close_window(struct window *w, bool global)
{
	struct row *r;

	if (nr_rows == rows_cap) {
		rows_cap = rows_cap ? 2 * rows_cap : 1024;
		rows = realloc(rows, rows_cap * sizeof(*rows));
		if (!rows)
			abort();
	}
	r = &rows[nr_rows++];
	r->bucket = w->bucket;
	r->global = global;
	memcpy(r->count, w->count, sizeof(r->count));
	w->open = false;
}

static void open_window(struct window *w, unsigned int bucket,
			unsigned int vcpu)
{
	memset(w, 0, sizeof(*w));
	w->open = true;
	w->bucket = bucket;
	w->opener = vcpu;
}

static void marker_exec(unsigned int vcpu, void *udata)
{
	struct insn_info *ii = udata;

	if (vcpu >= MAX_VCPUS)
		return;
	switch (ii->cmd) {
	case WQC_GLOBAL_OPEN:
		open_window(&global_win, ii->bucket, vcpu);
		break;
	case WQC_GLOBAL_CLOSE:
		if (global_win.open)
			close_window(&global_win, true);
		break;
	case WQC_LOCAL_OPEN:
		open_window(&local_win[vcpu], ii->bucket, vcpu);
		break;
	case WQC_LOCAL_CLOSE:
		if (local_win[vcpu].open)
			close_window(&local_win[vcpu], false);
		break;
	}
}

struct tb_info {
	uint64_t pc;		/* of the block's first instruction */
	uint64_t n_insns;
};

static void tb_exec(unsigned int vcpu, void *udata)
{
	struct tb_info *ti = udata;

	account(vcpu, M_INSNS, ti->n_insns, ti->pc);
}

static void insn_exec(unsigned int vcpu, void *udata)
{
	struct insn_info *ii = udata;

	if (vcpu >= MAX_VCPUS)
		return;
	switch (ii->kind) {
	case K_ATOMIC:
		account(vcpu, M_ATOMICS, 1, ii->pc);
		break;
	case K_FENCE:
		account(vcpu, M_FENCES, 1, ii->pc);
		break;
	case K_WRMSR:
		account(vcpu, M_APIC, 1, ii->pc);
		break;
	case K_HLT:
		account(vcpu, M_HALTS, 1, ii->pc);
		break;
	case K_CALL:
		shadow[vcpu][shadow_top[vcpu]++ % SHADOW_DEPTH] = ii->pc;
		break;
	case K_RET:
		if (shadow_top[vcpu])
			shadow_top[vcpu]--;
		break;
	default:
		break;
	}
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info,
		       uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	struct insn_info *ii = udata;
	uint8_t me = 1u << vcpu, *holders;
	uint64_t pa, line;

	if (!hw || vcpu >= MAX_VCPUS)
		return;
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	if (qemu_plugin_hwaddr_is_io(hw)) {
		if (qemu_plugin_mem_is_store(info) && (pa >> 12) == APIC_PAGE)
			account(vcpu, M_APIC, 1, ii->pc);
		return;
	}
	if (pa >= MAX_PHYS)
		return;
	line = pa >> LINE_SHIFT;
	holders = &line_holders[line];
	if (qemu_plugin_mem_is_store(info)) {
		/* another vCPU has a copy: it is invalidated, the line moves */
		if (*holders & ~me)
			account(vcpu, M_WLINES, 1, ii->pc);
		*holders = me;
		line_writer[line] = vcpu;
	} else if (!(*holders & me)) {
		/* a copy of a line another vCPU wrote; a cold miss is not counted */
		if (line_writer[line] >= 0 && line_writer[line] != (int8_t)vcpu)
			account(vcpu, M_RLINES, 1, ii->pc);
		*holders |= me;
	}
}

/* skip legacy and REX prefixes; report whether a LOCK prefix was seen */
static size_t skip_prefixes(const uint8_t *b, size_t n, bool *lock)
{
	size_t i = 0;

	*lock = false;
	for (; i < n; i++) {
		switch (b[i]) {
		case 0xf0:
			*lock = true;
			continue;
		case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x3e:
		case 0x26: case 0x64: case 0x65: case 0x66: case 0x67:
			continue;
		}
		break;
	}
	/* REX */
	if (i < n && (b[i] & 0xf0) == 0x40)
		i++;
	return i;
}

static void classify(const uint8_t *b, size_t n, struct insn_info *ii)
{
	bool lock;
	size_t i = skip_prefixes(b, n, &lock);
	uint32_t disp;

	ii->kind = K_PLAIN;
	if (i >= n)
		return;
	if (n == 7 && b[0] == 0x0f && b[1] == 0x1f && b[2] == 0x80) {
		memcpy(&disp, b + 3, sizeof(disp));
		if ((disp & WQC_MAGIC_MASK) == WQC_MAGIC) {
			ii->kind = K_MARKER;
			ii->cmd = (disp >> 12) & 0xf;
			ii->bucket = disp & 0xfff;
			return;
		}
	}
	if (lock) {
		ii->kind = K_ATOMIC;
		return;
	}
	switch (b[i]) {
	case 0x86:
	case 0x87:
		/* XCHG with a memory operand is locked */
		if (i + 1 < n && (b[i + 1] >> 6) != 3)
			ii->kind = K_ATOMIC;
		return;
	case 0xe8:
		ii->kind = K_CALL;
		return;
	case 0xff:
		if (i + 1 < n && ((b[i + 1] >> 3) & 7) == 2)
			ii->kind = K_CALL;
		return;
	case 0xc3:
	case 0xc2:
		ii->kind = K_RET;
		return;
	case 0xf4:
		ii->kind = K_HLT;
		return;
	case 0x0f:
		if (i + 1 < n && b[i + 1] == 0x30) {
			ii->kind = K_WRMSR;
			return;
		}
		/* 0f ae f0 mfence, 0f ae e8 lfence, 0f ae f8 sfence */
		if (i + 2 < n && b[i + 1] == 0xae &&
		    (b[i + 2] == 0xf0 || b[i + 2] == 0xe8 || b[i + 2] == 0xf8))
			ii->kind = K_FENCE;
		return;
	}
}

static void tb_trans(qemu_plugin_id_t id __attribute__((unused)),
		     struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct tb_info *ti = calloc(1, sizeof(*ti));

	/* translations are few, their records are never freed */
	if (!ti)
		abort();
	ti->pc = qemu_plugin_tb_vaddr(tb);
	ti->n_insns = n;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     ti);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct insn_info *ii = calloc(1, sizeof(*ii));

		/* translations are few, their records are never freed */
		if (!ii)
			abort();
		ii->pc = qemu_plugin_insn_vaddr(insn);
		classify(qemu_plugin_insn_data(insn),
			 qemu_plugin_insn_size(insn), ii);
		if (ii->kind == K_MARKER)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_exec,
				QEMU_PLUGIN_CB_NO_REGS, ii);
		else if (ii->kind != K_PLAIN)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_exec,
				QEMU_PLUGIN_CB_NO_REGS, ii);
		if (track_lines)
			qemu_plugin_register_vcpu_mem_cb(insn, mem_access,
				QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, ii);
	}
}

static void at_exit(qemu_plugin_id_t id __attribute__((unused)),
		    void *p __attribute__((unused)))
{
	char buf[512];
	size_t i;
	int s, m, len;

	for (i = 0; i < nr_rows; i++) {
		struct row *r = &rows[i];

		for (s = 0; s < (r->global ? NR_SIDES : 1); s++) {
			len = snprintf(buf, sizeof(buf), "W %u %s",
				       r->bucket + (r->global ? 0 : NR_BUCKETS),
				       side_name[s]);
			for (m = 0; m < NR_METRICS; m++)
				len += snprintf(buf + len, sizeof(buf) - len,
						" %s %llu", metric_name[m],
						(unsigned long long)r->count[s][m]);
			snprintf(buf + len, sizeof(buf) - len, "\n");
			qemu_plugin_outs(buf);
		}
	}
	for (i = 0; i < hist_size; i++) {
		struct hist_ent *e = &hist[i];

		if (!e->used)
			continue;
		snprintf(buf, sizeof(buf), "H %u %s %s 0x%llx 0x%llx %llu\n",
			 e->key.bucket, side_name[e->key.side],
			 metric_name[e->key.metric],
			 (unsigned long long)e->key.pc,
			 (unsigned long long)e->key.callsite,
			 (unsigned long long)e->count);
		qemu_plugin_outs(buf);
	}
	qemu_plugin_outs("E wqcount done\n");
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "wqcount: only for qemu-system-x86_64\n");
		return -1;
	}
	/* vCPUs hot-pluggable but never brought up do not matter */
	if (info->system.smp_vcpus > MAX_VCPUS) {
		fprintf(stderr, "wqcount: at most %d vCPUs, not %d\n", MAX_VCPUS,
			info->system.smp_vcpus);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "lines=off")) {
			track_lines = false;
		} else if (strcmp(argv[i], "lines=on")) {
			fprintf(stderr, "wqcount: unknown argument '%s' (lines=on|off)\n",
				argv[i]);
			return -1;
		}
	}
	hist = calloc(hist_size, sizeof(*hist));
	if (!hist)
		return -1;
	if (track_lines) {
		line_holders = calloc(MAX_PHYS >> LINE_SHIFT, 1);
		line_writer = malloc(MAX_PHYS >> LINE_SHIFT);
		if (!line_holders || !line_writer)
			return -1;
		memset(line_writer, -1, MAX_PHYS >> LINE_SHIFT);
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
