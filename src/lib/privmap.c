/* SPDX-License-Identifier: Apache-2.0 */
/*
 * privmap.c - the files the library mapped privately (see privmap.h): a
 * list under a lock, as inputs are opened and closed on any thread.
 */
#include "privmap.h"

#include <pthread.h>
#include <sys/mman.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static hs_privmap *maps;

void hs_privmap_add(hs_privmap *m)
{
    pthread_mutex_lock(&lock);
    m->next = maps;
    maps = m;
    pthread_mutex_unlock(&lock);
}

int hs_privmap_remove(hs_privmap *m)
{
    hs_privmap **p;
    int was = 0;

    pthread_mutex_lock(&lock);
    for (p = &maps; *p; p = &(*p)->next)
        if (*p == m) {
            *p = m->next;
            was = m->writable;
            break;
        }
    pthread_mutex_unlock(&lock);
    return was;
}

int hs_privmap_writable(const void *data, uint64_t size)
{
    hs_privmap *m;
    int ok;

    if (!data)
        return 0;
    pthread_mutex_lock(&lock);
    for (m = maps; m; m = m->next)
        if (m->data == data && m->size == size)
            break;
    /* ENOMEM (a strict commit limit, a file larger than memory): left
     * read-only, and read by copy */
    if (m && !m->writable && mprotect(m->map, m->len, PROT_READ | PROT_WRITE) == 0)
        m->writable = 1;
    ok = m && m->writable;
    pthread_mutex_unlock(&lock);
    return ok;
}
