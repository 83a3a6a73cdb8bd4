/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Histogram - class histogram of an HPROF dump, as VisualVM's heap parser
 * (org.graalvm.visualvm.lib.jfluid.heap) sees it.
 *
 * Used to check that hprof-strip's output still parses and still describes
 * the same objects: two dumps whose histograms are identical hold the same
 * number of instances of every class, with the same total shallow sizes.
 *
 * Usage: java -cp JFLUID_HEAP_JAR:DIR Histogram [--summary] [--roots] [--segment N] DUMP
 *
 * Output (stdout, deterministic, sorted by class name and then by counts):
 *   name<TAB>instances<TAB>bytes     one line per class
 *   TOTAL<TAB>instances<TAB>bytes
 * With --summary only the TOTAL line, then CLASSES<TAB>n and GC_ROOTS<TAB>n.
 * With --counts the bytes column is 0: sizes are not computed (VisualVM
 * needs java.lang.System's properties for them, which a truncated dump may
 * not hold), so only the parse and the instance counts are checked.
 * With --roots, GC root counts per kind follow (ROOT<TAB>kind<TAB>n).
 *
 * Exit status: 0 ok, 1 the dump could not be parsed, 2 usage error.
 *
 * Run it through tools/vvm-histogram.sh, which compiles it once and keeps
 * VisualVM's cache files in a temporary directory.
 */

import java.io.File;
import java.io.PrintStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.graalvm.visualvm.lib.jfluid.heap.GCRoot;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;

public final class Histogram {
    private static final String USAGE =
        "usage: Histogram [--summary] [--counts] [--roots] [--segment N] DUMP";

    /** One histogram line. */
    private static final class Row implements Comparable<Row> {
        final String name;
        final long instances;
        final long bytes;

        Row(String name, long instances, long bytes) {
            this.name = name;
            this.instances = instances;
            this.bytes = bytes;
        }

        @Override
        public int compareTo(Row o) {
            int c = name.compareTo(o.name);
            if (c != 0) return c;
            /* The same name twice: one class loaded by several loaders.
             * Order by the numbers so that object ids never matter. */
            c = Long.compare(instances, o.instances);
            if (c != 0) return c;
            return Long.compare(bytes, o.bytes);
        }
    }

    /** Keeps one line per class: control characters and backslashes escaped. */
    private static String clean(String s) {
        if (s == null) return "<null>";
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch < 0x20 || ch == 0x7f || ch == '\\') {
                if (b == null) b = new StringBuilder(s.substring(0, i));
                b.append(String.format("\\u%04x", (int) ch));
            } else if (b != null) {
                b.append(ch);
            }
        }
        return b == null ? s : b.toString();
    }

    private static void usage(String msg) {
        if (msg != null) System.err.println("Histogram: " + msg);
        System.err.println(USAGE);
        System.exit(2);
    }

    public static void main(String[] args) {
        boolean summary = false, roots = false, counts = false;
        int segment = 0;
        String path = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--summary")) {
                summary = true;
            } else if (a.equals("--counts")) {
                counts = true;
            } else if (a.equals("--roots")) {
                roots = true;
            } else if (a.equals("--segment")) {
                if (++i >= args.length) usage("--segment needs a number");
                try {
                    segment = Integer.parseInt(args[i]);
                } catch (NumberFormatException e) {
                    usage("bad --segment: " + args[i]);
                }
            } else if (a.equals("-h") || a.equals("--help")) {
                System.out.println(USAGE);
                System.exit(0);
            } else if (a.startsWith("-") && !a.equals("-")) {
                usage("unknown option " + a);
            } else if (path == null) {
                path = a;
            } else {
                usage("more than one DUMP");
            }
        }
        if (path == null) usage("no DUMP given");

        File file = new File(path);
        /* The wrapper passes a symlink in its temporary directory; the name
         * the user gave goes into the messages. */
        String shown = System.getProperty("vvm.histogram.name", path);
        if (!file.isFile()) {
            System.err.println("Histogram: " + shown + ": not a readable file");
            System.exit(1);
        }

        PrintStream out = new PrintStream(new BufferedOutputStream(System.out, 1 << 16),
                                          false, StandardCharsets.UTF_8);
        try {
            Heap heap = HeapFactory.createHeap(file, segment);
            List<JavaClass> classes = heap.getAllClasses();
            if (classes == null)
                throw new IOException("parser returned no class list");

            List<Row> rows = new ArrayList<>(classes.size());
            long totalInstances = 0, totalBytes = 0;
            for (JavaClass jc : classes) {
                long n = jc.getInstancesCount();
                /* sizes need java.lang.System's properties (VisualVM guesses
                 * compressed oops from them), which a dump cut short may lack */
                long b = counts ? 0 : jc.getAllInstancesSize();
                rows.add(new Row(clean(jc.getName()), n, b));
                totalInstances += n;
                totalBytes += b;
            }
            rows.sort(null);

            Collection<GCRoot> gcRoots = heap.getGCRoots();
            /* Heap.getSummary() is read here too, so that a broken HEAP_SUMMARY
             * or a failing computed summary shows up as an error. */
            if (!counts)
                heap.getSummary();

            if (!summary) {
                for (Row r : rows)
                    out.print(r.name + "\t" + r.instances + "\t" + r.bytes + "\n");
            }
            out.print("TOTAL\t" + totalInstances + "\t" + totalBytes + "\n");
            if (summary) {
                out.print("CLASSES\t" + rows.size() + "\n");
                out.print("GC_ROOTS\t" + gcRoots.size() + "\n");
            }
            if (roots) {
                Map<String, Long> kinds = new TreeMap<>();
                for (GCRoot r : gcRoots)
                    kinds.merge(clean(r.getKind()), 1L, Long::sum);
                for (Map.Entry<String, Long> e : kinds.entrySet())
                    out.print("ROOT\t" + e.getKey() + "\t" + e.getValue() + "\n");
            }
            out.flush();
            if (out.checkError()) {
                System.err.println("Histogram: error writing standard output");
                System.exit(1);
            }
        } catch (Throwable t) {
            /* Anything the parser throws (IOException, IllegalArgumentException,
             * IndexOutOfBounds, OutOfMemoryError...) is a parse failure. */
            System.err.println("Histogram: " + shown + ": cannot parse: " + t);
            if (System.getenv("VVM_HISTOGRAM_TRACE") != null) t.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }
}
