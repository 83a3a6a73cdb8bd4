/* SPDX-License-Identifier: Apache-2.0 */
/*
 * filter.h - the filter run over one of the library's own inputs (job.c,
 * hs_filter_run_input). A caller's hs_source cannot say that its bytes may
 * be written, and the struct is frozen (hprof_strip.h); the input can
 * (hs_input_writable), so a run that patches names in place (deobf.h) is
 * given the input beside its source, and asks it.
 */
#ifndef HS_FILTER_H
#define HS_FILTER_H

#include "hprof_strip.h"
#include "input.h"

/* hs_filter_run over `src`, which is `in`'s source (hs_input_source's) or
 * hands on its data unchanged (job.c's snapshot wrapper): the input's own
 * mapping is patched in place when hs_input_writable allows it, rather
 * than read through a copy. `in` NULL: as hs_filter_run. */
hs_status hs_filter_run_on(hs_filter *f, const hs_source *src, hs_input *in, const hs_sink *dst);

#endif
