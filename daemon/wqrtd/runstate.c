// SPDX-License-Identifier: GPL-2.0-only
#include "runstate.h"
#include "config_files.h"
#include "discover.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int mkdir_p(const char *path, mode_t mode)
{
	char buf[WQRT_PATH_MAX], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

int runstate_lock(const char *dir, pid_t *holder)
{
	char path[WQRT_PATH_MAX + 16], buf[32];
	ssize_t n;
	int fd;

	*holder = 0;
	snprintf(path, sizeof(path), "%s/" RUNSTATE_LOCK, dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = -errno;

		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		*holder = atoi(buf);
		close(fd);
		return err == -EAGAIN ? -EWOULDBLOCK : err;
	}
	runstate_lock_owner(fd);
	return fd;
}

void runstate_lock_owner(int fd)
{
	char buf[32];
	int n;

	/* who holds it, for the message of the one that cannot have it */
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, n, 0) != n)
		log_debug("the lock file: %s", strerror(errno));
}

const char *runstate_holder_name(pid_t pid)
{
	static char comm[32];
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (pid <= 0 || read_text(path, comm, sizeof(comm)) || !comm[0])
		return "gone, or unknown";
	return comm;
}

/* Write text to path through path.new and rename(): never half a file */
static int write_file(const char *path, const char *text, size_t len)
{
	char tmp[WQRT_PATH_MAX + 8];
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static void remove_copy(const char *dir, unsigned int gen)
{
	char pattern[WQRT_PATH_MAX + 32];
	glob_t g;
	size_t i;

	/* config.GEN/NAME, config.GEN/NAME.d/ *.conf, the directories */
	snprintf(pattern, sizeof(pattern), "%s/config.%u/*.d/*", dir, gen);
	if (!glob(pattern, 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc; i++)
			unlink(g.gl_pathv[i]);
		globfree(&g);
	}
	snprintf(pattern, sizeof(pattern), "%s/config.%u/*", dir, gen);
	if (!glob(pattern, 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc; i++)
			if (unlink(g.gl_pathv[i]))
				rmdir(g.gl_pathv[i]);
		globfree(&g);
	}
	snprintf(pattern, sizeof(pattern), "%s/config.%u", dir, gen);
	rmdir(pattern);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The copy: DIR/config.GEN/MAIN and DIR/config.GEN/MAIN.d/DROPIN */
static int write_copy(const char *dir, unsigned int gen,
		      const struct config *cfg, char *main_copy, size_t size)
{
	char sub[WQRT_PATH_MAX], path[WQRT_PATH_MAX * 2];
	const char *main_name = base_name(cfg->path);
	size_t i;
	int err;

	snprintf(sub, sizeof(sub), "%s/config.%u", dir, gen);
	remove_copy(dir, gen);
	if (mkdir(sub, 0755))
		return -errno;
	if (snprintf(main_copy, size, "%s/%s", sub, main_name) >= (int)size)
		return -ENAMETOOLONG;
	for (i = 0; i < cfg->nsources; i++) {
		const struct config_source *src = &cfg->sources[i];

		if (i == 0) {
			snprintf(path, sizeof(path), "%s", main_copy);
		} else {
			snprintf(path, sizeof(path), "%s.d", main_copy);
			if (i == 1 && mkdir(path, 0755))
				return -errno;
			snprintf(path, sizeof(path), "%s.d/%s", main_copy,
				 base_name(src->path));
		}
		err = write_file(path, src->text, src->len);
		if (err)
			return err;
	}
	return 0;
}

/* Field 22 of /proc/PID/stat of the real system: its start time */
static int start_time(pid_t pid, unsigned long long *start)
{
	struct task_info t;
	int err = task_read("/", pid, &t);

	if (!err)
		*start = t.start;
	return err;
}

int runstate_publish(const char *dir, const struct config *cfg,
		     unsigned int *gen)
{
	char main_copy[WQRT_PATH_MAX], path[WQRT_PATH_MAX];
	unsigned long long start = 0;
	char *text = NULL, *abs;
	size_t len = 0, i;
	FILE *f;
	int err;

	err = mkdir_p(dir, 0755);
	if (err)
		return err;
	err = write_copy(dir, *gen + 1, cfg, main_copy, sizeof(main_copy));
	if (err) {
		remove_copy(dir, *gen + 1);
		return err;
	}
	start_time(getpid(), &start);
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	/* absolute: wqrtctl compares them from another working directory */
	abs = realpath(cfg->path, NULL);
	fprintf(f, "pid=%d\nstart=%llu\nloaded=%lld\nconfig=%s\nsnapshot=%s\n",
		(int)getpid(), start, (long long)time(NULL),
		abs ? abs : cfg->path, main_copy);
	free(abs);
	for (i = 0; i < cfg->nsources; i++) {
		abs = realpath(cfg->sources[i].path, NULL);
		fprintf(f, "file=%s\n", abs ? abs : cfg->sources[i].path);
		free(abs);
	}
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "%s/" RUNSTATE_FILE, dir);
	err = write_file(path, text, len);
	free(text);
	if (err) {
		remove_copy(dir, *gen + 1);
		return err;
	}
	remove_copy(dir, *gen);
	++*gen;
	return 0;
}

void runstate_clear(const char *dir)
{
	char path[WQRT_PATH_MAX + 16];
	struct runstate rs;

	if (runstate_read(dir, &rs) == 0 && rs.pid == getpid()) {
		snprintf(path, sizeof(path), "%s/" RUNSTATE_FILE, dir);
		unlink(path);
		/* the copy: DIR/config.GEN/NAME */
		snprintf(path, sizeof(path), "%s", rs.snapshot);
		*strrchr(path, '/') = '\0';
		if (!strncmp(path, dir, strlen(dir)) &&
		    !strncmp(path + strlen(dir), "/config.", 8))
			remove_copy(dir,
				    strtoul(path + strlen(dir) + 8, NULL, 10));
	}
	runstate_free(&rs);
}

int runstate_read(const char *dir, struct runstate *rs)
{
	char path[WQRT_PATH_MAX + 16], line[WQRT_PATH_MAX + 16];
	unsigned long long start;
	bool pid = false, snap = false;
	FILE *f;
	long long v;
	int n;

	memset(rs, 0, sizeof(*rs));
	snprintf(path, sizeof(path), "%s/" RUNSTATE_FILE, dir);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ENOENT : -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "pid=%d", &n) == 1) {
			rs->pid = n;
			pid = n > 0;
		} else if (sscanf(line, "start=%llu", &rs->start) == 1) {
		} else if (sscanf(line, "loaded=%lld", &v) == 1) {
			rs->loaded = (time_t)v;
		} else if (!strncmp(line, "config=", 7)) {
			if (snprintf(rs->config, sizeof(rs->config), "%s",
				     line + 7) >= (int)sizeof(rs->config))
				rs->config[0] = '\0';
		} else if (!strncmp(line, "snapshot=", 9)) {
			snap = snprintf(rs->snapshot, sizeof(rs->snapshot),
					"%s",
					line + 9) < (int)sizeof(rs->snapshot);
		} else if (!strncmp(line, "file=", 5) &&
			   rs->nfiles < RUNSTATE_MAX_FILES) {
			rs->files[rs->nfiles] = strdup(line + 5);
			if (rs->files[rs->nfiles])
				rs->nfiles++;
		}
	}
	fclose(f);
	if (!pid || !snap || !rs->config[0])
		return -EINVAL;
	/* the daemon that wrote it, not a process that got its pid later */
	if ((kill(rs->pid, 0) && errno != EPERM) ||
	    start_time(rs->pid, &start) || start != rs->start)
		return -ESRCH;
	return 0;
}

void runstate_free(struct runstate *rs)
{
	size_t i;

	for (i = 0; i < rs->nfiles; i++)
		free(rs->files[i]);
	rs->nfiles = 0;
}

static bool same_content(const char *path, const struct config_source *src)
{
	bool same = false;
	struct stat st;
	char *buf;
	int fd;

	/* without blocking: a FIFO put in the file's place is no match */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    (size_t)st.st_size == src->len) {
		buf = malloc(src->len + 1);
		if (buf && read(fd, buf, src->len + 1) == (ssize_t)src->len)
			same = !memcmp(buf, src->text, src->len);
		free(buf);
	}
	close(fd);
	return same;
}

/*
 * The files of pattern that rs does not hold, in changed. shadow: the main
 * file whose CONFIG.d has the say on a name (a vendor drop-in that one of
 * the same name replaced, or a link to /dev/null hides, is not new).
 */
static void added_since(const struct runstate *rs, const char *pattern,
			const char *shadow, struct strlist *changed)
{
	char mine[WQRT_PATH_MAX * 2];
	struct stat st;
	size_t i, j;
	glob_t g;

	if (glob(pattern, 0, NULL, &g))
		return;
	for (j = 0; j < g.gl_pathc; j++) {
		if (shadow) {
			snprintf(mine, sizeof(mine), "%s.d/%s", shadow,
				 base_name(g.gl_pathv[j]));
			if (!lstat(mine, &st))
				continue;
		}
		for (i = 1; i < rs->nfiles; i++)
			if (!strcmp(rs->files[i], g.gl_pathv[j]))
				break;
		if (i == rs->nfiles || rs->nfiles == 0)
			strlist_add(changed, "%s", g.gl_pathv[j]);
	}
	globfree(&g);
}

bool runstate_changed(const struct runstate *rs, const struct config *held,
		      struct strlist *changed)
{
	const char *vendor = config_vendor_dir();
	char pattern[WQRT_PATH_MAX + 16];
	size_t before = changed->n, i;

	for (i = 0; i < rs->nfiles; i++) {
		/* the copy holds the same files in the same order */
		if (i >= held->nsources ||
		    !same_content(rs->files[i], &held->sources[i]))
			strlist_add(changed, "%s", rs->files[i]);
	}
	/* a drop-in added since, of CONFIG.d or of the vendor directory */
	snprintf(pattern, sizeof(pattern), "%s.d/*.conf", rs->config);
	added_since(rs, pattern, NULL, changed);
	if (vendor) {
		snprintf(pattern, sizeof(pattern), "%s/*.conf", vendor);
		added_since(rs, pattern, rs->config, changed);
	}
	return changed->n != before;
}
