// SPDX-License-Identifier: GPL-2.0-only
/*
 * The originals file itself (issue 46.7): any workqueue name and any
 * value the kernel shows round-trips; the file of before (version 1) is
 * still read; a value out of what the kernel takes, or a line that
 * cannot be read, keeps the file and fails loudly, naming its line.
 */
#include "daemon_fixture.h"

static char path[300];

/* Load path into a fresh state: state_load()'s result */
static int load(struct state *s)
{
	memset(s, 0, sizeof(*s));
	return state_load(s, path, ft.root, &fo.ops);
}

static const char *file(void)
{
	static char buf[4096];

	if (read_text(path, buf, sizeof(buf)))
		return "(none)";
	return buf;
}

static void write_file(const char *text)
{
	ft_write(&ft, "/originals", text);
	snprintf(path, sizeof(path), "%s/originals", ft.root);
}

/*
 * A workqueue named with a space lost its original: "my wq nice 0" read
 * back as workqueue "my", attribute "wq". Restore warned, put nothing
 * back, said "restored 0" and deleted the file.
 */
static void test_name_with_space_round_trips(void **state)
{
	(void)state;
	ft_wq(&ft, "my wq", true);
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	start("[wq:my*]\nnice = -5\npolicy = fifo\nrtprio = 3\n");
	assert_int_equal(daemon_use_state(&d, path), 0);
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "my wq", "nice"), "-5");
	/* a crash; the next instance has no rule for it */
	restart("[global]\n", path);
	assert_false(ft_logged("ignoring"));
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "my wq", "nice"), "0");
	assert_string_equal(ft_get(&ft, "my wq", "policy"), "normal");
	assert_string_equal(ft_get(&ft, "my wq", "rtprio"), "0");
	assert_int_equal(access(path, F_OK), -1);
}

/* Every byte a name can hold, and a value with blanks, round-trip */
static void test_any_name_round_trips(void **state)
{
	static const char *const names[] = {
		"my wq", "tab\there", "back\\slash", "new\nline", "x\\x41",
		"caf\xc3\xa9", " lead", "trail ", "%percent", "#hash",
	};
	struct state s, t;
	struct wq_track w[10];
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	memset(w, 0, sizeof(w));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(w[i].name, sizeof(w[i].name), "%s", names[i]);
		assert_int_equal(attr_parse_sysfs(WA_NICE, "-3", &w[i].orig), 0);
		assert_int_equal(attr_parse_sysfs(WA_AFFINITY_SCOPE,
						  "default (cache)",
						  &w[i].orig),
				 0);
	}
	assert_int_equal(load(&s), 0);
	assert_int_equal(state_save(&s, w, ARRAY_SIZE(names), NULL, 0), 0);
	assert_int_equal(load(&t), 0);
	assert_int_equal(t.n, ARRAY_SIZE(names));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct settings o;

		assert_true(state_take(&t, names[i], &o));
		assert_int_equal(o.set,
				 WA_BIT(WA_NICE) | WA_BIT(WA_AFFINITY_SCOPE));
		assert_int_equal(o.val[WA_NICE], -3);
	}
	/* one record a line, the file says its version first */
	assert_int_equal(strncmp(file(), "wqrtd-originals 2\n", 18), 0);
	assert_null(strstr(file(), "new\nline"));
	state_free(&s);
	state_free(&t);
}

/* A FIFO where the file should be: refused, never read or waited on */
static void test_not_a_regular_file(void **state)
{
	struct state s;

	(void)state;
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	assert_int_equal(mkfifo(path, 0600), 0);
	ft_clear_logs();
	assert_int_equal(load(&s), -EPERM);
	assert_true(ft_logged("not a regular file"));
	state_free(&s);
}

/* A value is unescaped as the name is: "\x2d5" is -5 */
static void test_escaped_value_read(void **state)
{
	struct settings o;
	struct state s;

	(void)state;
	write_file("wqrtd-originals 2\nwq tty_flip nice \\x2d5\n");
	assert_int_equal(load(&s), 0);
	assert_true(state_take(&s, "tty_flip", &o));
	assert_int_equal(o.val[WA_NICE], -5);
	state_free(&s);
}

/* The file of before, version 1 (no version line), is still read */
static void test_version_1_read(void **state)
{
	struct settings o;
	struct sched_val v;
	struct state s;

	(void)state;
	write_file("tty_flip policy fifo\ntty_flip rtprio 9\n"
		   "kworker 102 3 1 9 0\n");
	assert_int_equal(load(&s), 0);
	assert_true(state_take(&s, "tty_flip", &o));
	assert_int_equal(o.val[WA_POLICY], POLICY_FIFO);
	assert_int_equal(o.val[WA_RTPRIO], 9);
	assert_true(state_take_kw(&s, 102, 3, &v));
	assert_int_equal(v.policy, SCHED_FIFO);
	state_free(&s);
}

/*
 * A value the kernel would refuse is no original: one such line made
 * restore fail on every try. Now the file is refused as a whole, kept,
 * and the message names its line.
 */
static void test_out_of_range_refused(void **state)
{
	static const char *const bad[] = {
		"wq tty_flip rtprio 500\n",
		"wq tty_flip nice -21\n",
		"wq tty_flip max_active 0\n",
		"wq tty_flip nr_idle_extra 65\n",
		"wq tty_flip policy batch\n",
		"wq tty_flip frobs 1\n",
		"wq tty\\x2 nice 0\n",
		"wq tty\\x00 nice 0\n",
		"wq tty_flip nice\n",
		"kworker 102 3 1 0 0\n",
		"kworker 102 3 0 5 0\n",
		"kworker 102 3 7 0 0\n",
		"kworker 102 3 0 0 20\n",
		"kworker -1 3 0 0 0\n",
		"worker 102 3 0 0 0\n",
		"kworker 102 3 1 100 0\n",
		"kworker 102 3 0 0 -21\n",
		"kworker 102 3 0 0 0 x\n",
		"wq a123456789b123456789c123456789d123456789e123456789f123456789g123 nice 0\n",
		"wx tty_flip nice 0\n",
	};
	char text[300];
	struct state s;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text),
			 "wqrtd-originals 2\nwq ok nice 0\n%s", bad[i]);
		write_file(text);
		ft_clear_logs();
		if (load(&s) != -EBADMSG) {
			fprintf(stderr, "  accepted: %s", bad[i]);
			fail();
		}
		assert_true(ft_logged("originals:3: "));
		state_free(&s);
		/* kept as it was (read without its last newline) */
		*strrchr(text, '\n') = '\0';
		assert_string_equal(file(), text);
	}
	/* a version this wqrtd does not know */
	write_file("wqrtd-originals 3\nwq ok nice 0\n");
	assert_int_equal(load(&s), -EBADMSG);
	assert_true(ft_logged("originals:1: "));
	state_free(&s);
}

/* The daemon refuses the file whole: nothing put back, nothing lost */
static void test_bad_line_fails_restore_loudly(void **state)
{
	(void)state;
	series_tree();
	ft_set(&ft, "tty_flip", "nice", "-5");
	write_file("wqrtd-originals 2\nwq tty_flip nice 0\n"
		   "wq tty_flip rtprio 500\n");
	start("[global]\n");
	assert_int_equal(daemon_use_state(&d, path), -EBADMSG);
	assert_true(ft_logged("originals:3: "));
	assert_string_equal(ft_get(&ft, "tty_flip", "nice"), "-5");
	assert_int_equal(access(path, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_name_with_space_round_trips),
		T(test_any_name_round_trips),
		T(test_version_1_read),
		T(test_escaped_value_read),
		T(test_not_a_regular_file),
		T(test_out_of_range_refused),
		T(test_bad_line_fails_restore_loudly),
#undef T
	};

	return cmocka_run_group_tests_name("state", tests, NULL, NULL);
}
