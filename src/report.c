/*
 * report.c - the --stats report on stderr: a short table for people, or one
 * JSON object for pipelines.
 */
#include <stdio.h>

#include "cli.h"

#define U(x) ((unsigned long long)(x))

static const char *type_name(unsigned t)
{
    static const char *const names[12] = {"", "", "", "", "boolean", "char", "float",
                                          "double", "byte", "short", "int", "long"};
    return t < 12 ? names[t] : "?";
}

/* Duplicated arrays, found before scrubbing (counts only, no content). */
static void print_dups(const hs_stats *st)
{
    unsigned t, j;
    uint64_t n = 0, bytes = 0;

    for (t = 4; t < 12; t++)
        n += st->dup_arrays[t], bytes += st->dup_bytes[t];
    fprintf(stderr, "  duplicates      %llu arrays repeat an earlier one, %llu bytes", U(n),
            U(bytes));
    for (t = 4; t < 12; t++)
        if (st->dup_arrays[t])
            fprintf(stderr, "%s %s[] %llu (%llu bytes)", t == 4 ? ":" : ";", type_name(t),
                    U(st->dup_arrays[t]), U(st->dup_bytes[t]));
    fprintf(stderr, "\n");
    for (j = 0; j < 5 && st->dup_top[j].copies; j++)
        fprintf(stderr, "    %s[] of %llu bytes: %llu extra %s, %llu bytes wasted\n",
                type_name(st->dup_top[j].type), U(st->dup_top[j].length_bytes),
                U(st->dup_top[j].copies), st->dup_top[j].copies == 1 ? "copy" : "copies",
                U(st->dup_top[j].wasted));
}

void hs_cli_print_stats(const hs_stats *st)
{
    fprintf(stderr,
            "%s: %llu bytes in, %llu bytes out (%.1f%%)\n"
            "  records         %llu in, %llu out (%llu heap segments written)\n"
            "  sub-records     %llu in, %llu out\n"
            "  objects         %llu instances, %llu object arrays, %llu primitive arrays, "
            "%llu class dumps\n"
            "  payload bytes   %llu zeroed or filled, %llu dropped (%llu arrays dropped)\n"
            "  heaps           %llu objects dropped\n"
            "  roots           %llu in, %llu dropped (at most %llu held at once)\n"
            "  strings         %llu in, %llu out, %llu dropped as unused\n"
            "  fields          %llu primitive bytes scrubbed; %llu instances waited for "
            "their class (%llu bytes at most, %llu of them spilled), %llu never found it\n"
            "  non-zero found  %llu array bytes (first at input byte %llu), %llu field bytes "
            "(first at %llu)\n"
            "  held memory     %llu bytes at most\n",
            "hprof-strip", U(st->bytes_in), U(st->bytes_out),
            st->bytes_in ? 100.0 * (double)st->bytes_out / (double)st->bytes_in : 0.0,
            U(st->records_in), U(st->records_out), U(st->segments_out), U(st->subrecords_in),
            U(st->subrecords_out), U(st->instances), U(st->object_arrays),
            U(st->primitive_arrays), U(st->class_dumps), U(st->payload_bytes_zeroed),
            U(st->payload_bytes_dropped), U(st->arrays_dropped), U(st->objects_dropped),
            U(st->roots), U(st->roots_dropped), U(st->roots_held_peak), U(st->strings_in),
            U(st->strings_out), U(st->strings_dropped), U(st->field_bytes_scrubbed),
            U(st->instances_held), U(st->instance_bytes_held_peak),
            U(st->instance_bytes_spilled_peak), U(st->instances_unresolved),
            U(st->nonzero_array_bytes), U(st->first_nonzero_array),
            U(st->nonzero_field_bytes), U(st->first_nonzero_field), U(st->held_bytes_peak));
    print_dups(st);
}

void hs_cli_print_stats_json(const hs_stats *st)
{
    fprintf(stderr,
            "{\"bytes_in\":%llu,\"bytes_out\":%llu,\"records_in\":%llu,"
            "\"records_out\":%llu,\"segments_out\":%llu,\"subrecords_in\":%llu,"
            "\"subrecords_out\":%llu,\"instances\":%llu,\"object_arrays\":%llu,"
            "\"primitive_arrays\":%llu,\"class_dumps\":%llu,"
            "\"payload_bytes_zeroed\":%llu,\"payload_bytes_dropped\":%llu,"
            "\"arrays_dropped\":%llu,\"objects_dropped\":%llu,\"roots\":%llu,"
            "\"roots_dropped\":%llu,\"roots_held_peak\":%llu,\"strings_in\":%llu,"
            "\"strings_out\":%llu,\"strings_dropped\":%llu,\"held_bytes_peak\":%llu,"
            "\"field_bytes_scrubbed\":%llu,\"instances_held\":%llu,"
            "\"instance_bytes_held_peak\":%llu,\"instances_unresolved\":%llu,"
            "\"nonzero_array_bytes\":%llu,\"first_nonzero_array\":%llu,"
            "\"nonzero_field_bytes\":%llu,\"first_nonzero_field\":%llu,",
            U(st->bytes_in), U(st->bytes_out), U(st->records_in), U(st->records_out),
            U(st->segments_out), U(st->subrecords_in), U(st->subrecords_out),
            U(st->instances), U(st->object_arrays), U(st->primitive_arrays),
            U(st->class_dumps), U(st->payload_bytes_zeroed), U(st->payload_bytes_dropped),
            U(st->arrays_dropped), U(st->objects_dropped), U(st->roots), U(st->roots_dropped),
            U(st->roots_held_peak), U(st->strings_in), U(st->strings_out),
            U(st->strings_dropped), U(st->held_bytes_peak), U(st->field_bytes_scrubbed),
            U(st->instances_held), U(st->instance_bytes_held_peak),
            U(st->instances_unresolved), U(st->nonzero_array_bytes),
            U(st->first_nonzero_array), U(st->nonzero_field_bytes),
            U(st->first_nonzero_field));
    {
        unsigned t, j;
        fprintf(stderr, "\"duplicates\":{");
        for (t = 4; t < 12; t++)
            fprintf(stderr, "%s\"%s\":{\"arrays\":%llu,\"bytes\":%llu}", t == 4 ? "" : ",",
                    type_name(t), U(st->dup_arrays[t]), U(st->dup_bytes[t]));
        fprintf(stderr, "},\"duplicates_top\":[");
        for (j = 0; j < 5 && st->dup_top[j].copies; j++)
            fprintf(stderr,
                    "%s{\"type\":\"%s\",\"length_bytes\":%llu,\"copies\":%llu,"
                    "\"wasted\":%llu}",
                    j ? "," : "", type_name(st->dup_top[j].type),
                    U(st->dup_top[j].length_bytes), U(st->dup_top[j].copies),
                    U(st->dup_top[j].wasted));
        fprintf(stderr, "]}\n");
    }
}

