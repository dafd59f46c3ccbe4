// SPDX-License-Identifier: GPL-2.0-only
#include "config_files.h"
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define FILE_MAX_BYTES (1 << 20)

/*
 * The directory that holds path (symbolic links followed), checked as
 * the file is: whoever can write it can put another file in its place.
 * 0, or -1 (error added). A path that does not resolve is left to open(),
 * which says why.
 */
static int check_dir_of(const char *path, struct strlist *errors)
{
	char *real = realpath(path, NULL), *slash, why[WQRT_PATH_MAX + 160];
	struct stat st;
	int err = 0;

	if (!real)
		return 0;
	slash = strrchr(real, '/');
	if (slash)
		*(slash == real ? slash + 1 : slash) = '\0';
	if (stat(real, &st)) {
		strlist_add(errors, "%s: cannot stat: %s", real,
			    strerror(errno));
		err = -1;
	} else if (trust_check(real, &st, why, sizeof(why))) {
		strlist_add(errors, "%s: %s", real, why);
		err = -1;
	}
	free(real);
	return err;
}

int config_read(const char *path, char **text, size_t *len,
		struct strlist *errors)
{
	char why[WQRT_PATH_MAX + 160];
	struct stat st;
	ssize_t n;
	int fd;

	if (check_dir_of(path, errors))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		strlist_add(errors, "%s: cannot open: %s", path,
			    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		strlist_add(errors, "%s: cannot stat: %s", path,
			    strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		strlist_add(errors, "%s: not a regular file; refusing it",
			    path);
	} else if (trust_check(path, &st, why, sizeof(why))) {
		strlist_add(errors, "%s: %s", path, why);
	} else if (st.st_size > FILE_MAX_BYTES) {
		strlist_add(errors, "%s: larger than %d bytes; refusing it",
			    path, FILE_MAX_BYTES);
	} else {
		*text = malloc(st.st_size + 1);
		n = *text ? read(fd, *text, st.st_size) : -1;
		if (n >= 0) {
			*len = n;
			(*text)[n] = '\0';
			close(fd);
			return 0;
		}
		strlist_add(errors, "%s: cannot read: %s", path,
			    strerror(errno));
		free(*text);
		*text = NULL;
	}
	close(fd);
	return -1;
}

static int conf_name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int conf_name_filter(const struct dirent *de)
{
	size_t len = strlen(de->d_name);

	return de->d_name[0] != '.' && len > 5 &&
	       !strcmp(de->d_name + len - 5, ".conf");
}

/* The vendor directory: unset (the default), or what was asked for */
static bool vendor_dir_set;
static const char *vendor_dir_asked;

void config_use_vendor_dir(const char *dir)
{
	vendor_dir_set = true;
	vendor_dir_asked = dir;
}

const char *config_vendor_dir(void)
{
	const char *env;

	if (vendor_dir_set)
		return vendor_dir_asked;
	env = secure_getenv("WQRT_VENDOR_DIR");
	return env && *env ? env : WQRT_VENDOR_DIR;
}

/* A drop-in: its name, and the directory it is read from */
struct dropin {
	char *name;
	const char *dir;
	bool masked; /* a link to /dev/null: hides the vendor's, read never */
};

/*
 * An administrator's drop-in that masks the vendor's file of its name, as
 * systemd's do: a link to /dev/null (or /dev/null itself, bind-mounted).
 */
static bool is_mask(const char *dir, const char *name)
{
	char path[WQRT_PATH_MAX * 2], target[16];
	struct stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	n = readlink(path, target, sizeof(target) - 1);
	if (n == 9 && !memcmp(target, "/dev/null", 9))
		return true;
	return !stat(path, &st) && S_ISCHR(st.st_mode) &&
	       st.st_rdev == makedev(1, 3);
}

/*
 * Add the *.conf of dir to v (n of them), a name already there (from a
 * directory that wins) skipped. A missing directory is no error; one that
 * others can write is, as for the files. 0, or -1 (errors added).
 */
static int scan_dropins(const char *dir, bool masks, struct dropin **v,
			size_t *n, struct strlist *errors)
{
	struct dirent **names = NULL;
	struct dropin *grown;
	struct stat st;
	int i, m, err = 0;
	size_t j;

	if (stat(dir, &st)) {
		if (errno == ENOENT)
			return 0;
		strlist_add(errors, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		strlist_add(errors, "%s: not a directory; refusing it", dir);
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		strlist_add(errors,
			    "%s: owned by uid %u, not root; refusing it (chown root %s)",
			    dir, (unsigned int)st.st_uid, dir);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		strlist_add(errors,
			    "%s: group or others can write it (mode %04o); refusing it (chmod go-w %s)",
			    dir, (unsigned int)(st.st_mode & 07777), dir);
		return -1;
	}
	m = scandir(dir, &names, conf_name_filter, conf_name_cmp);
	if (m < 0) {
		strlist_add(errors, "%s: %s", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < m; i++) {
		for (j = 0; j < *n && strcmp((*v)[j].name, names[i]->d_name);
		     j++)
			;
		if (j < *n || err)
			continue;
		grown = realloc(*v, (*n + 1) * sizeof(**v));
		if (!grown || !(grown[*n].name = strdup(names[i]->d_name))) {
			if (grown)
				*v = grown;
			strlist_add(errors, "%s: out of memory", dir);
			err = -1;
			continue;
		}
		*v = grown;
		grown[*n].dir = dir;
		grown[*n].masked = masks && is_mask(dir, names[i]->d_name);
		(*n)++;
	}
	for (i = 0; i < m; i++)
		free(names[i]);
	free(names);
	return err;
}

static int dropin_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dropin *)a)->name,
		      ((const struct dropin *)b)->name);
}

int config_files(const char *path, struct conf_file **files,
		 struct strlist *errors)
{
	const char *vendor = config_vendor_dir();
	struct dropin *d = NULL;
	char dir[WQRT_PATH_MAX];
	struct conf_file *v;
	size_t nd = 0, i, n = 0;
	int err;

	*files = NULL;
	if (snprintf(dir, sizeof(dir), "%s.d", path) >= (int)sizeof(dir)) {
		strlist_add(errors, "%s: name too long", path);
		return -1;
	}
	err = scan_dropins(dir, true, &d, &nd, errors);
	if (!err && vendor && strcmp(vendor, dir))
		err = scan_dropins(vendor, false, &d, &nd, errors);
	if (nd)
		qsort(d, nd, sizeof(*d), dropin_cmp);
	v = err ? NULL : calloc(nd + 1, sizeof(*v));
	if (v)
		v[n++].path = strdup(path);
	for (i = 0; i < nd; i++) {
		if (v && !d[i].masked &&
		    asprintf(&v[n++].path, "%s/%s", d[i].dir, d[i].name) < 0)
			v[n - 1].path = NULL;
		free(d[i].name);
	}
	free(d);
	if (err)
		return -1;
	for (i = 0; v && i < n; i++)
		if (!v[i].path)
			break;
	if (!v || i < n) {
		strlist_add(errors, "%s: out of memory", path);
		while (v && n > 0)
			free(v[--n].path);
		free(v);
		return -1;
	}
	*files = v;
	return n;
}
