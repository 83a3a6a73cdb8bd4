/* SPDX-License-Identifier: Apache-2.0 */
/*
 * files.c - which files a run may write: the inputs noted by identity, the
 * outputs claimed one by one against them and against each other (the rule
 * is stated in files.h and in the man page, FILES).
 */
#define _GNU_SOURCE
#include "files.h"
#include "hprof_strip.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file named on the command line: what it is, by identity. */
typedef struct {
    const char *what, *path; /* path NULL: a descriptor (standard input/output) */
    int exists;              /* dev, ino and mode are set */
    dev_t dev;
    ino_t ino;
    mode_t mode;
    int have_place;          /* an output: the directory and name it lands at */
    dev_t dir_dev;
    ino_t dir_ino;
    char *base;              /* malloc'd */
} named;

static named *g_inputs;
static size_t g_n_inputs, g_cap_inputs;
/* The outputs claimed: the dump, standard output, the report. */
static named g_outputs[8];
static size_t g_n_outputs;
static char g_why[1024];

__attribute__((format(printf, 1, 2)))
static int refuse(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(g_why, sizeof g_why, fmt, ap);
    va_end(ap);
    return 1;
}

const char *hs_files_why(void)
{
    return g_why;
}

void hs_files_reset(void)
{
    size_t i;

    for (i = 0; i < g_n_outputs; i++)
        free(g_outputs[i].base);
    free(g_inputs);
    g_inputs = NULL;
    g_n_inputs = g_cap_inputs = 0;
    g_n_outputs = 0;
    g_why[0] = 0;
}

static void set_id(named *n, const struct stat *st)
{
    n->exists = 1;
    n->dev = st->st_dev;
    n->ino = st->st_ino;
    n->mode = st->st_mode;
}

static int add_input(const char *what, const char *path, const struct stat *st)
{
    named *n;

    if (g_n_inputs == g_cap_inputs) {
        size_t cap = g_cap_inputs ? 2 * g_cap_inputs : 8;
        named *grown = realloc(g_inputs, cap * sizeof *grown);
        if (!grown)
            return -1;
        g_inputs = grown;
        g_cap_inputs = cap;
    }
    n = &g_inputs[g_n_inputs++];
    memset(n, 0, sizeof *n);
    n->what = what;
    n->path = path;
    set_id(n, st);
    return 0;
}

int hs_files_note_input(const char *what, const char *path)
{
    struct stat st;

    assert(what && path);
    return stat(path, &st) == 0 ? add_input(what, path, &st) : 0;
}

int hs_files_note_input_fd(const char *what, int fd)
{
    struct stat st;

    assert(what);
    return fstat(fd, &st) == 0 ? add_input(what, NULL, &st) : 0;
}

/* `path` with symbolic links followed, as far as they lead (a dangling
 * link ends at the name it points to, which the output then creates).
 * malloc'd; NULL with errno set. */
static char *follow_links(const char *path)
{
    char *p = strdup(path);
    int hops;

    for (hops = 0; p && hops < 40; hops++) {
        struct stat st;
        char link[4096], *next, *slash;
        ssize_t n;

        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
            return p;
        n = readlink(p, link, sizeof link - 1);
        if (n < 0) {
            free(p);
            return NULL;
        }
        link[n] = 0;
        slash = strrchr(p, '/');
        /* a relative target is relative to the link's directory */
        if (link[0] == '/' || !slash) {
            next = strdup(link);
        } else {
            next = malloc((size_t)(slash - p) + 1 + (size_t)n + 1);
            if (next)
                sprintf(next, "%.*s/%s", (int)(slash - p), p, link);
        }
        free(p);
        p = next;
    }
    if (p) {
        free(p);
        errno = ELOOP;
    }
    return NULL;
}

/* Where `target` (links already followed) lands: its directory's identity
 * and its last name, so that two names of a file not yet made compare
 * equal. 0, or -1 with errno set. */
static int set_place(named *n, const char *target)
{
    const char *slash = strrchr(target, '/');
    char *dir;
    struct stat st;
    int r;

    if (!slash)
        dir = strdup(".");
    else if (slash == target)
        dir = strdup("/");
    else
        dir = strndup(target, (size_t)(slash - target));
    if (!dir)
        return -1;
    r = stat(dir, &st);
    free(dir);
    if (r != 0)
        return errno == ENOENT || errno == ENOTDIR ? 0 : -1; /* creating it fails later */
    if (!(n->base = strdup(slash ? slash + 1 : target)))
        return -1;
    n->have_place = 1;
    n->dir_dev = st.st_dev;
    n->dir_ino = st.st_ino;
    return 0;
}

static int same_file(const named *a, const named *b)
{
    if (a->exists && b->exists && a->dev == b->dev && a->ino == b->ino)
        return 1;
    return a->have_place && b->have_place && a->dir_dev == b->dir_dev &&
           a->dir_ino == b->dir_ino && strcmp(a->base, b->base) == 0;
}

/* "INPUT d.hprof", "-r my.rules", "standard input". */
static const char *name_of(const named *n, char *buf, size_t cap)
{
    if (!n->path)
        return n->what;
    snprintf(buf, cap, "%s %s", n->what, n->path);
    return buf;
}

/* The output `o` against the inputs and the outputs claimed before it.
 * Reading and writing one character device (a terminal, /dev/null) or one
 * socket (inetd) destroys nothing; two outputs may share a character
 * device (/dev/null) but not a FIFO, whose reader would get them mixed. */
static int check_clashes(const named *o)
{
    char a[600], b[600];
    size_t i;

    for (i = 0; i < g_n_inputs; i++)
        if (same_file(o, &g_inputs[i]) && !S_ISCHR(o->mode) && !S_ISSOCK(o->mode))
            return refuse("%s is %s (the same file): a run never writes over what it reads",
                          name_of(o, a, sizeof a), name_of(&g_inputs[i], b, sizeof b));
    for (i = 0; i < g_n_outputs; i++)
        if (strcmp(o->what, g_outputs[i].what) != 0 && same_file(o, &g_outputs[i]) &&
            !(o->exists && S_ISCHR(o->mode)))
            return refuse("%s and %s name the same file: give each its own",
                          name_of(o, a, sizeof a), name_of(&g_outputs[i], b, sizeof b));
    return 0;
}

/* Records `o` as claimed (a claim of the same `what` replaces the old). */
static void record(named *o)
{
    size_t i;

    for (i = 0; i < g_n_outputs; i++)
        if (strcmp(o->what, g_outputs[i].what) == 0) {
            free(g_outputs[i].base);
            g_outputs[i] = *o;
            return;
        }
    assert(g_n_outputs < sizeof g_outputs / sizeof g_outputs[0]);
    g_outputs[g_n_outputs++] = *o;
}

/* What the first bytes of a regular file say it holds. */
enum contents { HOLDS_OTHER, HOLDS_NOTHING, HOLDS_DUMP, HOLDS_REPORT };

static enum contents contents_of(const char *path)
{
    unsigned char b[16];
    ssize_t n, i;
    int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0)
        return HOLDS_OTHER; /* unreadable: nothing known, nothing allowed without -f */
    n = read(fd, b, sizeof b);
    close(fd);
    if (n <= 0)
        return n == 0 ? HOLDS_NOTHING : HOLDS_OTHER;
    /* HPROF, or compressed as the library reads it (gzip, zstd, a zstd
     * skippable frame as pzstd writes): a dump, or could be one; nobody
     * wants a report or a second run's output over it */
    if ((n >= 12 && memcmp(b, "JAVA PROFILE", 12) == 0) || hs_sniff(b, (size_t)n) > 0)
        return HOLDS_DUMP;
    /* a report: the JSON object this program writes (only space before it) */
    for (i = 0; i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r'); i++)
        ;
    return i < n && b[i] == '{' ? HOLDS_REPORT : HOLDS_OTHER;
}

/* An existing regular file at `path`: may this output replace it? */
static int may_replace_existing(const char *what, const char *path, int how)
{
    enum contents has = contents_of(path);

    if (how & HS_OUT_REPORT) {
        if (has == HOLDS_DUMP)
            return refuse("%s holds a heap dump: %s never writes a report over one", path, what);
        if (has == HOLDS_NOTHING || has == HOLDS_REPORT || (how & HS_OUT_FORCE))
            return 0;
        return refuse("%s already exists and is not a JSON report; use -f to overwrite it",
                      path);
    }
    if ((how & HS_OUT_MAPFILE) && has == HOLDS_DUMP)
        return refuse("%s holds a heap dump: %s never writes a mapping over one", path, what);
    if ((how & HS_OUT_POSITIONAL) && has == HOLDS_DUMP)
        return refuse("%s already holds a heap dump and is named as OUTPUT, the second file "
                      "name (as a wildcard such as *.hprof gives it): refusing to replace it; "
                      "to replace it, name it with -o (and -f)",
                      path);
    return (how & HS_OUT_FORCE) ? 0 : refuse("%s already exists; use -f to overwrite it", path);
}

/* hs_files_claim, `o` filled for the record: 0, 1 or -1. */
static int claim(named *o, const char *path, int how, hs_claim *c)
{
    struct stat st;
    int r;

    /* stat follows every link, /proc's magic ones (/dev/stdout) too */
    if (stat(path, &st) == 0) {
        set_id(o, &st);
        if (S_ISDIR(st.st_mode))
            return refuse("%s is a directory; give a file name to %s", path, o->what);
        if (!S_ISREG(st.st_mode)) {
            if ((r = check_clashes(o)) != 0)
                return r;
            /* writing into a character device (/dev/null, a terminal), a FIFO
             * or a socket destroys nothing; over a block device (a disk) is
             * said with -f. What is not a regular file is opened by the name
             * given: the kernel follows the links there. */
            if (S_ISBLK(st.st_mode) && !(how & HS_OUT_FORCE))
                return refuse("%s already exists; use -f to overwrite it", path);
            if (!(c->target = strdup(path)))
                return -1;
            c->in_place = 1;
            return 0;
        }
    } else if (errno != ENOENT) {
        return -1;
    }
    if (!(c->target = follow_links(path)) || set_place(o, c->target) != 0)
        return -1;
    if ((r = check_clashes(o)) != 0)
        goto refused;
    if (o->exists) {
        if ((r = may_replace_existing(o->what, path, how)) != 0)
            goto refused;
        c->may_replace = 1;
        c->old_mode = (int)(st.st_mode & 07777);
    } else if (lstat(path, &st) == 0 && !(how & HS_OUT_FORCE)) {
        /* a dangling link is still a name in the way */
        r = refuse("%s already exists (a link to %s, which does not); use -f to overwrite it",
                   path, c->target);
        goto refused;
    } else {
        /* nothing there now: with -f, what appears meanwhile may go */
        c->may_replace = (how & HS_OUT_FORCE) != 0;
    }
    return 0;

refused:
    free(c->target);
    c->target = NULL;
    return r;
}

int hs_files_claim(const char *path, int how, hs_claim *c)
{
    named o;
    int r, e;

    assert(path && c);
    memset(c, 0, sizeof *c);
    memset(&o, 0, sizeof o);
    c->old_mode = -1;
    g_why[0] = 0;
    o.what = how & HS_OUT_REPORT       ? "--stats-file"
             : how & HS_OUT_MAPFILE    ? "--obfuscate-names"
             : how & HS_OUT_POSITIONAL ? "OUTPUT"
                                       : "-o";
    o.path = path;
    r = claim(&o, path, how, c);
    /* a refused output is recorded too: two outputs naming one file clash
     * whether or not either may be written */
    if (r >= 0) {
        record(&o);
        return r;
    }
    e = errno;
    free(o.base);
    free(c->target);
    c->target = NULL;
    errno = e;
    return -1;
}

int hs_files_claim_stdout(const char *what)
{
    named o;
    struct stat st;
    int r;

    assert(what);
    memset(&o, 0, sizeof o);
    o.what = what;
    if (fstat(1, &st) != 0)
        return 0; /* closed: writing fails, and says so */
    set_id(&o, &st);
    /* a regular file there is truncated already (`>`) or appended to
     * (`>>`): either way, if it is an input, reading it goes wrong */
    if ((r = check_clashes(&o)) != 0)
        return r;
    record(&o);
    return 0;
}

int hs_files_must_keep(const char *path)
{
    struct stat st;
    size_t i;

    if (lstat(path, &st) != 0)
        return 0;
    if (!S_ISREG(st.st_mode))
        return 1;
    for (i = 0; i < g_n_inputs; i++)
        if (g_inputs[i].dev == st.st_dev && g_inputs[i].ino == st.st_ino)
            return 1;
    return 0;
}
