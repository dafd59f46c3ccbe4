// SPDX-License-Identifier: GPL-2.0-only
/*
 * sys_save_file(), the durable save of wqrtd's originals (issue 46.7),
 * through its system calls: each one seen, in its order, and made to
 * fail or to do less than asked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "faketree.h"
#include "sysops.h"
#include "util.h"

static struct faketree ft;
static char path[300];

/* What the calls did, in order: "open F", "write N", "fsync F", ... */
static struct strlist calls;
/* the fd's file, for the record: "file" or "dir" */
static char fd_what[64][8];
/* each call's failure: its errno, 0 for none */
static int fail_write, fail_fsync_file, fail_fsync_dir, fail_rename;
static int fail_close;
/* write at most this many bytes a call (0: all) */
static size_t write_max;
/* a write that returns 0 once, a write interrupted once */
static bool write_zero, write_eintr;

static const char *what(int fd)
{
	return fd >= 0 && fd < 64 ? fd_what[fd] : "?";
}

static int t_open(const char *p, int flags, mode_t mode)
{
	int fd = open(p, flags, mode);

	if (fd >= 0 && fd < 64)
		snprintf(fd_what[fd], sizeof(fd_what[fd]), "%s",
			 (flags & O_DIRECTORY) ? "dir" : "file");
	strlist_add(&calls, "open %s", fd < 0 ? "failed" : what(fd));
	return fd;
}

static ssize_t t_write(int fd, const void *buf, size_t n)
{
	if (write_eintr) {
		write_eintr = false;
		strlist_add(&calls, "write EINTR");
		errno = EINTR;
		return -1;
	}
	if (write_zero) {
		write_zero = false;
		strlist_add(&calls, "write 0");
		return 0;
	}
	if (write_max && n > write_max)
		n = write_max;
	/* what fits before the disk is full goes, then ENOSPC */
	if (fail_write && calls.n > 1 &&
	    !strncmp(calls.v[calls.n - 1], "write", 5)) {
		strlist_add(&calls, "write failed");
		errno = fail_write;
		return -1;
	}
	strlist_add(&calls, "write %zu", n);
	return write(fd, buf, n);
}

static int t_fsync(int fd)
{
	int err = !strcmp(what(fd), "dir") ? fail_fsync_dir : fail_fsync_file;

	strlist_add(&calls, "fsync %s", what(fd));
	if (err) {
		errno = err;
		return -1;
	}
	return fsync(fd);
}

static int t_close(int fd)
{
	strlist_add(&calls, "close %s", what(fd));
	close(fd);
	if (fail_close && !strcmp(what(fd), "file")) {
		errno = fail_close;
		return -1;
	}
	return 0;
}

static int t_rename(const char *from, const char *to)
{
	strlist_add(&calls, "rename");
	if (fail_rename) {
		errno = fail_rename;
		return -1;
	}
	return rename(from, to);
}

static int t_unlink(const char *p)
{
	int r = unlink(p);

	strlist_add(&calls, "unlink%s", strstr(p, ".new") ? " new" : "");
	return r;
}

static const struct file_calls calls_seen = {
	.open = t_open,
	.write = t_write,
	.fsync = t_fsync,
	.close = t_close,
	.rename = t_rename,
	.unlink = t_unlink,
};

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	ft_write(&ft, "/originals", "old\n");
	fail_write = fail_fsync_file = fail_fsync_dir = fail_rename = 0;
	fail_close = 0;
	write_max = 0;
	write_zero = write_eintr = false;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	strlist_free(&calls);
	ft_cleanup(&ft);
	return 0;
}

static const char *joined(void)
{
	static char buf[1024];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < calls.n && len < sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				i ? ", " : "", calls.v[i]);
	return buf;
}

static const char *content(void)
{
	static char buf[256];

	if (read_text(path, buf, sizeof(buf)))
		return "(none)";
	return buf;
}

static bool new_left(void)
{
	char p[320];
	struct stat st;

	snprintf(p, sizeof(p), "%s.new", path);
	return !stat(p, &st);
}

static int save(const char *text)
{
	return sys_save_file((void *)&calls_seen, path, text,
			     text ? strlen(text) : 0);
}

/*
 * The order that makes it durable: the data synced before the rename
 * makes it the file, the directory synced after it (dropping either
 * fsync fails here).
 */
static void test_saved_synced_renamed_synced(void **state)
{
	(void)state;
	assert_int_equal(save("new\n"), 0);
	assert_string_equal(joined(),
			    "open file, write 4, fsync file, close file, rename, open dir, fsync dir, close dir");
	assert_string_equal(content(), "new");
	assert_false(new_left());
}

/*
 * A .new left by a crash in the middle of an earlier, longer save: the
 * file saved now is the text alone, nothing of the old one's tail
 */
static void test_stale_new_file_replaced(void **state)
{
	char p[320];
	FILE *f;

	(void)state;
	snprintf(p, sizeof(p), "%s.new", path);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("a much longer text of an earlier save\n", f);
	fclose(f);
	assert_int_equal(save("new\n"), 0);
	assert_string_equal(content(), "new");
	assert_false(new_left());
}

/* A write that takes less than it is given: the rest follows */
static void test_short_writes(void **state)
{
	(void)state;
	write_max = 3;
	write_eintr = true;
	assert_int_equal(save("0123456789\n"), 0);
	assert_string_equal(joined(),
			    "open file, write EINTR, write 3, write 3, write 3, write 2, fsync file, close file, rename, open dir, fsync dir, close dir");
	assert_string_equal(content(), "0123456789");
}

/*
 * A full disk in the middle of the data: the error, the old file as it
 * was, no .new left (ignoring the write's error made a truncated file
 * the originals).
 */
static void test_enospc_keeps_the_old_file(void **state)
{
	(void)state;
	write_max = 4;
	fail_write = ENOSPC;
	assert_int_equal(save("0123456789\n"), -ENOSPC);
	assert_string_equal(content(), "old");
	assert_false(new_left());
	assert_null(strstr(joined(), "rename"));
}

/* A write that makes no progress is an error, never a loop */
static void test_write_without_progress(void **state)
{
	(void)state;
	write_zero = true;
	assert_int_equal(save("new\n"), -EIO);
	assert_string_equal(content(), "old");
	assert_false(new_left());
}

/* EIO at the file's fsync, at its close: no rename, the old file */
static void test_sync_or_close_error(void **state)
{
	(void)state;
	fail_fsync_file = EIO;
	assert_int_equal(save("new\n"), -EIO);
	assert_string_equal(content(), "old");
	assert_false(new_left());
	assert_null(strstr(joined(), "rename"));
	strlist_free(&calls);
	fail_fsync_file = 0;
	fail_close = EDQUOT;
	assert_int_equal(save("new\n"), -EDQUOT);
	assert_string_equal(content(), "old");
	assert_false(new_left());
}

/* A rename that fails: the old file, the new one removed */
static void test_rename_error(void **state)
{
	(void)state;
	fail_rename = EROFS;
	assert_int_equal(save("new\n"), -EROFS);
	assert_string_equal(content(), "old");
	assert_false(new_left());
}

/* The directory's fsync failing: the save is not durable, and says so */
static void test_directory_sync_error(void **state)
{
	(void)state;
	fail_fsync_dir = EIO;
	assert_int_equal(save("new\n"), -EIO);
}

/* No text: the file removed, and the removal made durable */
static void test_remove(void **state)
{
	(void)state;
	assert_int_equal(save(NULL), 0);
	assert_string_equal(joined(), "unlink, open dir, fsync dir, close dir");
	assert_string_equal(content(), "(none)");
	strlist_free(&calls);
	/* already gone: nothing to do but the sync */
	assert_int_equal(save(NULL), 0);
	fail_fsync_dir = EIO;
	assert_int_equal(save(NULL), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_saved_synced_renamed_synced),
		T(test_short_writes),
		T(test_stale_new_file_replaced),
		T(test_enospc_keeps_the_old_file),
		T(test_write_without_progress),
		T(test_sync_or_close_error),
		T(test_rename_error),
		T(test_directory_sync_error),
		T(test_remove),
#undef T
	};

	return cmocka_run_group_tests_name("save", tests, NULL, NULL);
}
