/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jvm.h - --jvm PID: a running JVM's heap read straight from the JVM, as
 * it writes it, through a FIFO in a private directory (jvm.c says how),
 * so that the full dump never touches a disk.
 */
#ifndef HS_JVM_H
#define HS_JVM_H

#include "cli.h"

/* The command's exit codes for a JVM that could not be dumped (the man
 * page's EXIT STATUS; the report's error.status in brackets): */
enum {
    /* ["jvm-target"] no such process, not a HotSpot JVM, or one this user
     * may not attach to: the same command fails again */
    EXIT_JVM_TARGET = 9,
    /* ["jvm-dump"] jcmd missing, jcmd could not attach, or the JVM
     * refused or broke off the dump */
    EXIT_JVM_DUMP = 10
};

/* Before hs_cli_run: refuses what cannot work before the JVM is touched
 * (an INPUT operand, an output that may not be written), checks that PID
 * is a JVM this user may dump, makes the FIFO, starts
 * `jcmd PID GC.heap_dump [-all] -overwrite FIFO` and waits until the JVM
 * writes into it (or jcmd ends without it doing so); then the FIFO's read
 * end is standard input, and its name and directory are already gone.
 * Returns HS_EXIT_OK, or an exit code with the failure reported. */
int hs_jvm_open(hs_cli *cli);

/* After hs_cli_run, whatever it returned (`rc`): closes the FIFO, waits
 * for jcmd and reads its verdict, removes the FIFO and its directory if
 * they are still there. Returns `rc`, or the JVM's exit code when the
 * dump itself failed. */
int hs_jvm_close(hs_cli *cli, int rc);

#endif
