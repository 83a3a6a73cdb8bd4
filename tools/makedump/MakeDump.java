/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MakeDump - fills the Java heap with an application-like object graph and
 * writes a real HotSpot heap dump of roughly the requested size.
 *
 * Usage: java -XmxNNNm -cp DIR MakeDump [--seed N] [--big-frac F] [--mix M] SIZE_MB OUT.hprof
 *
 *   SIZE_MB      wanted dump size in MiB (roughly; the estimate below is
 *                usually within a few percent)
 *   OUT.hprof    must not exist and must end in .hprof (HotSpot's rules)
 *   --seed N     the object graph is a pure function of the seed (default 1)
 *   --big-frac F share of the dump given to big primitive arrays (default
 *                0.72). Small objects add String and small-array payloads,
 *                so primitive-array payload ends up around 75-80% of the file.
 *   --mix M      what the small objects are: app (default, the scenarios
 *                below), instances (many small instances, few arrays: linked
 *                nodes with primitive fields, boxed numbers, Instants, small
 *                records; one Object[] per 1024 of them), or strings (many
 *                short Strings of 2 to 24 characters, each with its byte[],
 *                held 1024 to an ArrayList). Use with --big-frac 0.
 *
 * Run it through tools/makedump.sh, which compiles it, picks -Xmx and
 * writes the dump atomically.
 *
 * What the heap holds, all reachable from static fields or thread stacks so
 * that dumpHeap(path, true) (live objects only) keeps it:
 *   - customers (app class with primitive, String, array and collection
 *     fields) in a HashMap<Long, Customer>, each with orders (Instant,
 *     long[] item ids, back reference to the customer) in an ArrayList;
 *   - sessions in a ConcurrentHashMap: hex tokens, byte[] keys, char[]
 *     passwords, HashMap attributes with boxed values;
 *   - a LinkedList of log events with messages of varied length, some in
 *     Greek, Cyrillic, CJK or with emoji (UTF-16 Strings);
 *   - metric series as ArrayList<Double>/<Long> and double[]/float[]/int[];
 *   - a TreeMap of settings, a HashSet of tags, an ArrayDeque of small
 *     byte[]/short[]/boolean[] chunks;
 *   - buffer pools of big byte[], int[], long[], double[], char[], float[]
 *     and short[] arrays (64 KiB to 16 MiB) holding zeros, random bytes,
 *     text, counters or smooth curves;
 *   - two parked worker threads with local references (Java-frame roots)
 *     and a held monitor.
 */

import com.sun.management.HotSpotDiagnosticMXBean;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

public final class MakeDump {

    /* ---- Estimated HPROF bytes of each kind of record (64-bit HotSpot,
     * 8-byte ids). The generator counts these to know when to stop. ---- */
    static final int ID = 8;
    /** INSTANCE_DUMP: tag, id, serial, class id, length. */
    static final int INST = 1 + ID + 4 + ID + 4;
    /** PRIMITIVE_ARRAY_DUMP: tag, id, serial, count, type. */
    static final int PARR = 1 + ID + 4 + 4 + 1;
    /** OBJECT_ARRAY_DUMP: tag, id, serial, count, class id. */
    static final int OARR = 1 + ID + 4 + 4 + ID;
    /** A java.lang.String: value, hash, coder, hashIsZero. */
    static final int STRING = INST + ID + 4 + 1 + 1;
    /** What an otherwise empty JDK 17 dump weighs (classes, JDK objects). */
    static final long BASELINE = 4L << 20;

    static long inst(int primBytes, int refs) {
        return INST + primBytes + (long) refs * ID;
    }

    /* ---- The application's classes. ---- */

    static final class Customer {
        long id;
        int age;
        double balance;
        boolean active;
        char tier;
        short region;
        float score;
        byte flags;
        long createdMillis;
        String name;
        String email;
        String city;
        List<Order> orders;
        Map<String, String> attributes;
        byte[] avatar;
        int[] history;
        Instant created;
        static final long EST = inst(8 + 4 + 8 + 1 + 2 + 2 + 4 + 1 + 8, 8);
    }

    static final class Order {
        long id;
        double amount;
        int quantity;
        String currency;
        String status;
        long[] itemIds;
        Instant placed;
        Customer customer;
        static final long EST = inst(8 + 8 + 4, 5);
    }

    static final class Session {
        String token;
        byte[] key;
        char[] password;
        long lastSeen;
        int hits;
        Customer user;
        Map<String, Object> attrs;
        static final long EST = inst(8 + 4, 5);
    }

    static final class LogEvent {
        long timestamp;
        int level;
        String thread;
        String message;
        Object[] args;
        static final long EST = inst(8 + 4, 3);
    }

    static final class BufferPool {
        final String name;
        final List<Object> buffers = new ArrayList<>();
        BufferPool(String name) { this.name = name; }
    }

    /* ---- Roots: everything the dump must keep. ---- */
    static final Map<Long, Customer> CUSTOMERS = new HashMap<>();
    static final Map<String, Session> SESSIONS = new ConcurrentHashMap<>();
    static final LinkedList<LogEvent> EVENTS = new LinkedList<>();
    static final List<List<? extends Number>> SERIES = new ArrayList<>();
    static final List<Object> NUMERIC = new ArrayList<>();
    static final TreeMap<String, String> SETTINGS = new TreeMap<>();
    static final HashSet<String> TAGS = new HashSet<>();
    static final ArrayDeque<Object> CHUNKS = new ArrayDeque<>();
    static final List<BufferPool> POOLS = new ArrayList<>();
    static final List<Object> WORKER_DATA = new ArrayList<>();
    /* --mix instances / strings: blocks of 1024 small objects */
    static final List<Object[]> BLOCKS = new ArrayList<>();
    static final List<List<String>> SHORT = new ArrayList<>();

    /* ---- Word lists for text. ---- */
    static final String[] WORDS = {
        "the", "order", "customer", "payment", "accepted", "rejected", "timeout",
        "retry", "invoice", "shipping", "warehouse", "account", "balance", "user",
        "session", "request", "response", "cache", "miss", "hit", "update", "delete",
        "select", "from", "where", "join", "index", "value", "null", "error", "warning",
        "connection", "pool", "thread", "queue", "latency", "ms", "status", "ok",
        "failed", "processing", "batch", "item", "price", "discount", "total", "tax",
        "address", "street", "number", "token", "expired", "refresh", "login", "logout",
        "report", "daily", "monthly", "export", "import", "file", "upload", "download",
    };
    static final String[] NON_LATIN = {
        "данные", "пользователь", "заказ", "ошибка", "κατάσταση", "πελάτης", "λογαριασμός",
        "数据", "用户", "订单", "错误", "東京", "注文", "ユーザー", "주문", "사용자",
        "😀", "🚀", "✓", "€", "→", "Ω", "עברית", "العربية", "हिन्दी",
    };
    static final String[] FIRST = {
        "Anna", "Ben", "Chloé", "David", "Élodie", "Farid", "Greta", "Hiro", "Ingrid",
        "José", "Kai", "Lena", "Miguel", "Nadia", "Oskar", "Priya", "Quentin", "Rosa",
        "Søren", "Tomás", "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zoë", "Дмитрий",
        "Ελένη", "美咲", "민준",
    };
    static final String[] LAST = {
        "Smith", "Müller", "García", "Rossi", "Nowak", "Johansson", "Dubois", "Silva",
        "Kowalski", "Novak", "Jensen", "O'Brien", "Tanaka", "Kim", "Nguyen", "Patel",
        "Schmidt", "Costa", "Ivanov", "Papadopoulos", "Иванова", "佐藤", "王",
    };
    /* Shared String objects: many fields point at the same few. */
    static final String[] CITIES = {
        "Berlin", "Paris", "Madrid", "Roma", "Warszawa", "Stockholm", "Lisboa", "Praha",
        "Wien", "Zürich", "København", "Москва", "Αθήνα", "東京", "서울", "São Paulo",
    };
    static final String[] CURRENCIES = { "EUR", "USD", "GBP", "JPY", "CHF", "SEK", "PLN" };
    static final String[] STATUSES = { "NEW", "PAID", "SHIPPED", "DELIVERED", "CANCELLED", "RETURNED" };
    static final String[] THREADS = { "main", "http-nio-8080-exec-1", "http-nio-8080-exec-2",
                                      "scheduler-1", "kafka-consumer-0", "ForkJoinPool-1-worker-3" };

    /* ---- Generator state. ---- */
    final SplittableRandom rnd;
    /** Estimated dump bytes of small objects and of big arrays made so far. */
    long smallEst, bigEst;
    /** Estimated primitive-array payload bytes (for the summary line). */
    long payloadEst;
    long nextId = 1_000_000;
    /** A few KiB of text to copy into big char[]/byte[] buffers. */
    final char[] textBlock;

    MakeDump(long seed) {
        rnd = new SplittableRandom(seed);
        StringBuilder sb = new StringBuilder();
        while (sb.length() < 8192) sb.append(sentence(20, 200)).append('\n');
        textBlock = sb.toString().toCharArray();
    }

    /* ---- Small building blocks. Each adds its estimate to smallEst. ---- */

    String pick(String[] a) {
        return a[rnd.nextInt(a.length)];
    }

    /** Text of minLen..maxLen chars made of words, sometimes non-Latin-1. */
    String sentence(int minLen, int maxLen) {
        int len = minLen + rnd.nextInt(maxLen - minLen + 1);
        boolean wide = rnd.nextInt(8) == 0;
        StringBuilder sb = new StringBuilder(len + 16);
        while (sb.length() < len) {
            if (sb.length() > 0) sb.append(' ');
            if (wide && rnd.nextInt(4) == 0) sb.append(pick(NON_LATIN));
            else if (rnd.nextInt(10) == 0) sb.append(rnd.nextInt(100000));
            else sb.append(pick(WORDS));
        }
        if (sb.length() > len) {
            sb.setLength(len);
            /* Do not leave half a surrogate pair at the end. */
            if (len > 0 && Character.isHighSurrogate(sb.charAt(len - 1))) sb.setLength(len - 1);
        }
        return sb.toString();
    }

    /** A new String object, counted. */
    String str(String s) {
        String copy = new String(s);   /* a distinct object, as in real heaps */
        countString(copy);
        return copy;
    }

    void countString(String s) {
        boolean latin1 = true;
        for (int i = 0; i < s.length() && latin1; i++) latin1 = s.charAt(i) < 256;
        int bytes = latin1 ? s.length() : 2 * s.length();
        smallEst += STRING + PARR + bytes;
        payloadEst += bytes;
    }

    String hex(int nBytes) {
        StringBuilder sb = new StringBuilder(2 * nBytes);
        for (int i = 0; i < nBytes; i++) {
            int b = rnd.nextInt(256);
            sb.append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 15, 16));
        }
        String s = sb.toString();
        countString(s);
        return s;
    }

    byte[] smallBytes(int n) {
        byte[] a = new byte[n];
        rnd.nextBytes(a);
        smallEst += PARR + n;
        payloadEst += n;
        return a;
    }

    int[] smallInts(int n) {
        int[] a = new int[n];
        int v = rnd.nextInt(1000);
        for (int i = 0; i < n; i++) a[i] = v += rnd.nextInt(50);
        smallEst += PARR + 4L * n;
        payloadEst += 4L * n;
        return a;
    }

    long[] smallLongs(int n) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) a[i] = 1_000_000_000L + rnd.nextInt(5_000_000);
        smallEst += PARR + 8L * n;
        payloadEst += 8L * n;
        return a;
    }

    double[] smallDoubles(int n) {
        double[] a = new double[n];
        double v = rnd.nextDouble() * 100;
        for (int i = 0; i < n; i++) a[i] = v += rnd.nextDouble() - 0.5;
        smallEst += PARR + 8L * n;
        payloadEst += 8L * n;
        return a;
    }

    char[] smallChars(int n) {
        char[] a = new char[n];
        for (int i = 0; i < n; i++) a[i] = (char) ('!' + rnd.nextInt(94));
        smallEst += PARR + 2L * n;
        payloadEst += 2L * n;
        return a;
    }

    /** A boxed number that is a new object (outside the small-value caches). */
    Object boxed() {
        switch (rnd.nextInt(6)) {
            case 0: smallEst += inst(4, 0); return Integer.valueOf(1000 + rnd.nextInt(1 << 30));
            case 1: smallEst += inst(8, 0); return Long.valueOf(rnd.nextLong());
            case 2: smallEst += inst(8, 0); return Double.valueOf(rnd.nextDouble() * 1e6);
            case 3: smallEst += inst(4, 0); return Float.valueOf((float) rnd.nextDouble());
            case 4: return Boolean.valueOf(rnd.nextBoolean());            /* shared */
            default: return Integer.valueOf(rnd.nextInt(128));            /* cached */
        }
    }

    /** HashMap / ArrayList / LinkedList overheads, roughly. */
    void countHashMap(int entries) {
        int table = Integer.highestOneBit(Math.max(1, (int) (entries / 0.75f)) * 2 - 1);
        smallEst += inst(16, 4) + OARR + (long) Math.max(16, table) * ID
                  + entries * inst(4, 3);
    }

    void countArrayList(int n) {
        smallEst += inst(8, 1) + OARR + (long) Math.max(10, n + n / 4) * ID;
    }

    /* ---- Small-object scenarios. ---- */

    Customer customer() {
        Customer c = new Customer();
        smallEst += Customer.EST;
        c.id = nextId++;
        c.age = 18 + rnd.nextInt(70);
        c.balance = Math.round(rnd.nextDouble() * 1e6) / 100.0;
        c.active = rnd.nextInt(5) != 0;
        c.tier = "BSGP".charAt(rnd.nextInt(4));
        c.region = (short) rnd.nextInt(300);
        c.score = (float) rnd.nextDouble();
        c.flags = (byte) rnd.nextInt(256);
        c.createdMillis = 1_500_000_000_000L + rnd.nextLong(300_000_000_000L);
        String first = pick(FIRST), last = pick(LAST);
        c.name = str(first + " " + last);
        c.email = str((first + "." + last).toLowerCase().replace('\'', '-')
                      + rnd.nextInt(1000) + "@example.com");
        c.city = pick(CITIES);
        c.created = Instant.ofEpochMilli(c.createdMillis);
        smallEst += inst(8 + 4, 0);
        if (rnd.nextInt(3) == 0) c.avatar = smallBytes(64 + rnd.nextInt(2048));
        c.history = smallInts(4 + rnd.nextInt(61));

        int nAttr = 2 + rnd.nextInt(5);
        c.attributes = new HashMap<>();
        for (int i = 0; i < nAttr; i++)
            c.attributes.put(pick(WORDS), str(sentence(3, 40)));
        countHashMap(nAttr);

        int nOrders = rnd.nextInt(6);
        c.orders = new ArrayList<>();
        for (int i = 0; i < nOrders; i++) {
            Order o = new Order();
            smallEst += Order.EST;
            o.id = nextId++;
            o.amount = Math.round(rnd.nextDouble() * 50000) / 100.0;
            o.quantity = 1 + rnd.nextInt(20);
            o.currency = pick(CURRENCIES);
            o.status = pick(STATUSES);
            o.itemIds = smallLongs(1 + rnd.nextInt(12));
            o.placed = Instant.ofEpochMilli(c.createdMillis + rnd.nextLong(1_000_000_000L));
            smallEst += inst(8 + 4, 0);
            o.customer = c;
            c.orders.add(o);
        }
        countArrayList(nOrders);

        CUSTOMERS.put(c.id, c);
        smallEst += inst(8, 0) + inst(4, 3);   /* boxed key, map node */
        return c;
    }

    void session(Customer user) {
        Session s = new Session();
        smallEst += Session.EST;
        s.token = hex(16);
        s.key = smallBytes(rnd.nextBoolean() ? 16 : 32);
        s.password = smallChars(8 + rnd.nextInt(9));
        s.lastSeen = 1_700_000_000_000L + rnd.nextLong(10_000_000_000L);
        s.hits = rnd.nextInt(10000);
        s.user = user;
        int n = 1 + rnd.nextInt(6);
        s.attrs = new HashMap<>();
        for (int i = 0; i < n; i++)
            s.attrs.put(pick(WORDS), rnd.nextInt(3) == 0 ? str(sentence(1, 30)) : boxed());
        countHashMap(n);
        SESSIONS.put(s.token, s);
        smallEst += inst(4, 3);
    }

    void logEvent() {
        LogEvent e = new LogEvent();
        smallEst += LogEvent.EST;
        e.timestamp = 1_700_000_000_000L + rnd.nextLong(86_400_000L);
        e.level = rnd.nextInt(5);
        e.thread = pick(THREADS);
        /* Mostly short lines, a few long ones (stack traces, SQL, JSON). */
        e.message = rnd.nextInt(20) == 0 ? str(sentence(300, 4000)) : str(sentence(10, 160));
        int n = rnd.nextInt(4);
        if (n > 0) {
            e.args = new Object[n];
            smallEst += OARR + (long) n * ID;
            for (int i = 0; i < n; i++) e.args[i] = rnd.nextBoolean() ? boxed() : str(sentence(1, 24));
        }
        EVENTS.add(e);
        smallEst += inst(0, 3);   /* LinkedList.Node */
    }

    void metrics() {
        int n = 16 + rnd.nextInt(240);
        if (rnd.nextBoolean()) {
            List<Double> l = new ArrayList<>(n);
            double v = rnd.nextDouble() * 100;
            for (int i = 0; i < n; i++) l.add(v += rnd.nextDouble() - 0.5);
            smallEst += (long) n * inst(8, 0);
            SERIES.add(l);
        } else {
            List<Long> l = new ArrayList<>(n);
            long v = rnd.nextLong(1L << 40);
            for (int i = 0; i < n; i++) l.add(v += rnd.nextInt(1000));
            smallEst += (long) n * inst(8, 0);
            SERIES.add(l);
        }
        countArrayList(n);
        switch (rnd.nextInt(3)) {
            case 0: NUMERIC.add(smallDoubles(4 + rnd.nextInt(60))); break;
            case 1: {
                int m = 4 + rnd.nextInt(60);
                float[] f = new float[m];
                for (int i = 0; i < m; i++) f[i] = (float) rnd.nextDouble();
                smallEst += PARR + 4L * m;
                payloadEst += 4L * m;
                NUMERIC.add(f);
                break;
            }
            default: NUMERIC.add(smallInts(4 + rnd.nextInt(60)));
        }
        smallEst += ID;
    }

    void misc() {
        switch (rnd.nextInt(4)) {
            case 0:
                SETTINGS.put(str("app." + pick(WORDS) + "." + pick(WORDS) + "." + nextId++),
                             str(sentence(1, 80)));
                smallEst += inst(5, 4);   /* TreeMap.Entry */
                break;
            case 1:
                if (TAGS.add(str(pick(WORDS) + "-" + rnd.nextInt(1 << 20))))
                    smallEst += inst(4, 3) + 2 * ID;
                break;
            case 2: {
                int n = 1 + rnd.nextInt(512);
                switch (rnd.nextInt(4)) {
                    case 0: CHUNKS.add(smallBytes(n)); break;
                    case 1: {
                        short[] s = new short[n];
                        for (int i = 0; i < n; i++) s[i] = (short) rnd.nextInt(1 << 16);
                        smallEst += PARR + 2L * n;
                        payloadEst += 2L * n;
                        CHUNKS.add(s);
                        break;
                    }
                    case 2: {
                        boolean[] b = new boolean[n];
                        for (int i = 0; i < n; i++) b[i] = rnd.nextInt(3) == 0;
                        smallEst += PARR + n;
                        payloadEst += n;
                        CHUNKS.add(b);
                        break;
                    }
                    default: CHUNKS.add(smallChars(1 + rnd.nextInt(64)));
                }
                smallEst += ID;
                break;
            }
            default:
                NUMERIC.add(boxed());
                smallEst += ID;
        }
    }

    /* ---- --mix instances: small instances, few arrays. ---- */

    static final class Node {
        long key;
        int count;
        short kind;
        byte flags;
        Node next;
        Object value;
        static final long EST = inst(8 + 4 + 2 + 1, 2);
    }

    static final class Point {
        int x, y;
        Point(int x, int y) { this.x = x; this.y = y; }
        static final long EST = inst(8, 0);
    }

    static final class Pair {
        Object first, second;
        Pair(Object a, Object b) { first = a; second = b; }
        static final long EST = inst(0, 2);
    }

    Object[] block;
    int blockUsed;
    Node lastNode;
    List<String> shortList;

    /** Holds `o` in the current block of 1024, starting a new one when full. */
    void hold(Object o) {
        if (block == null || blockUsed == block.length) {
            block = new Object[1024];
            blockUsed = 0;
            BLOCKS.add(block);
            smallEst += OARR + 1024L * ID + ID;
        }
        block[blockUsed++] = o;
    }

    void instanceStep() {
        int r = rnd.nextInt(100);
        if (r < 40) {                          /* a chain of nodes */
            Node n = new Node();
            smallEst += Node.EST;
            n.key = rnd.nextLong();
            n.count = rnd.nextInt(1000);
            n.kind = (short) rnd.nextInt(40);
            n.flags = (byte) rnd.nextInt(256);
            n.next = rnd.nextInt(4) == 0 ? null : lastNode;
            n.value = rnd.nextInt(3) == 0 ? boxed() : new Point(rnd.nextInt(), rnd.nextInt());
            if (n.value instanceof Point) smallEst += Point.EST;
            lastNode = n;
            if (rnd.nextInt(8) == 0) hold(n);
        } else if (r < 60) {
            hold(boxed());
        } else if (r < 75) {
            hold(Instant.ofEpochMilli(1_600_000_000_000L + rnd.nextLong(100_000_000_000L)));
            smallEst += inst(8 + 4, 0);
        } else if (r < 90) {
            hold(new Pair(new Point(rnd.nextInt(100), rnd.nextInt(100)), boxed()));
            smallEst += Pair.EST + Point.EST;
        } else {
            hold(new Point(rnd.nextInt(), rnd.nextInt()));
            smallEst += Point.EST;
        }
    }

    /* ---- --mix strings: many short strings. ---- */

    void stringStep() {
        if (shortList == null || shortList.size() == 1024) {
            shortList = new ArrayList<>(1024);
            SHORT.add(shortList);
            countArrayList(1024);
        }
        String s;
        switch (rnd.nextInt(4)) {
            case 0: s = pick(WORDS) + rnd.nextInt(1000); break;
            case 1: s = String.format("%016x", rnd.nextLong()).substring(0, 2 + rnd.nextInt(14)); break;
            case 2: s = pick(FIRST); break;
            default: s = sentence(2, 24);
        }
        shortList.add(str(s));
    }

    String mix = "app";

    void smallStep() {
        if (mix.equals("instances")) {
            instanceStep();
            return;
        }
        if (mix.equals("strings")) {
            stringStep();
            return;
        }
        int r = rnd.nextInt(100);
        if (r < 30) {
            Customer c = customer();
            if (rnd.nextInt(3) == 0) session(c);
        } else if (r < 40) {
            session(null);
        } else if (r < 75) {
            logEvent();
        } else if (r < 85) {
            metrics();
        } else {
            misc();
        }
    }

    /* ---- Big primitive arrays. ---- */

    /** Array payload of about target bytes: log-uniform size, mixed types and contents. */
    void bigStep(long maxBytes, long limit) {
        long lo = Math.min(64 << 10, limit), hi = Math.max(lo, Math.min(maxBytes, limit));
        long bytes = (long) (lo * Math.pow((double) hi / lo, rnd.nextDouble()));
        bytes = Math.max(16, bytes);
        int kind = rnd.nextInt(100);
        int content = rnd.nextInt(100);   /* <20 zeros, <50 random, <75 text, else structured */
        Object arr;
        if (kind < 55) {
            byte[] a = new byte[(int) bytes];
            if (content < 20) {
                /* a fresh, unused buffer */
            } else if (content < 50) {
                rnd.nextBytes(a);                           /* compressed data, images */
            } else if (content < 75) {
                for (int i = 0; i < a.length; ) {            /* text, JSON, HTML */
                    int off = rnd.nextInt(textBlock.length);
                    int n = Math.min(a.length - i, Math.min(textBlock.length - off, 64 + rnd.nextInt(1024)));
                    for (int j = 0; j < n; j++) a[i + j] = (byte) textBlock[off + j];
                    i += n;
                }
            } else {
                for (int i = 0; i < a.length; i++) a[i] = (byte) (i * 31 >> 6);   /* pixels, ramps */
            }
            arr = a;
            bytes = a.length;
        } else if (kind < 67) {
            int[] a = new int[(int) (bytes / 4)];
            if (content >= 20) {
                int v = rnd.nextInt();
                for (int i = 0; i < a.length; i++) a[i] = content < 50 ? rnd.nextInt() : (v += rnd.nextInt(16));
            }
            arr = a;
            bytes = 4L * a.length;
        } else if (kind < 77) {
            long[] a = new long[(int) (bytes / 8)];
            if (content >= 20) {
                long v = 1_600_000_000_000L + rnd.nextLong(1L << 36);
                for (int i = 0; i < a.length; i++) a[i] = content < 50 ? rnd.nextLong() : (v += rnd.nextInt(1000));
            }
            arr = a;
            bytes = 8L * a.length;
        } else if (kind < 87) {
            double[] a = new double[(int) (bytes / 8)];
            if (content >= 20) {
                double phase = rnd.nextDouble() * 6.28;
                for (int i = 0; i < a.length; i++)
                    a[i] = content < 50 ? rnd.nextDouble() : Math.sin(phase + i * 1e-3) * 100;
            }
            arr = a;
            bytes = 8L * a.length;
        } else if (kind < 95) {
            char[] a = new char[(int) (bytes / 2)];
            if (content >= 20) {
                for (int i = 0; i < a.length; ) {
                    int off = rnd.nextInt(textBlock.length);
                    int n = Math.min(a.length - i, textBlock.length - off);
                    System.arraycopy(textBlock, off, a, i, n);
                    i += n;
                }
            }
            arr = a;
            bytes = 2L * a.length;
        } else if (kind < 98) {
            float[] a = new float[(int) (bytes / 4)];
            if (content >= 20)
                for (int i = 0; i < a.length; i++) a[i] = (float) Math.cos(i * 0.01) + (float) rnd.nextDouble() * 0.1f;
            arr = a;
            bytes = 4L * a.length;
        } else {
            short[] a = new short[(int) (bytes / 2)];
            if (content >= 20)
                for (int i = 0; i < a.length; i++) a[i] = (short) (Math.sin(i * 0.05) * 12000 + rnd.nextInt(512));
            arr = a;
            bytes = 2L * a.length;
        }
        POOLS.get(rnd.nextInt(POOLS.size())).buffers.add(arr);
        bigEst += PARR + bytes + ID;
        payloadEst += bytes;
    }

    /* ---- Worker threads: Java-frame roots, a thread with a held monitor. ---- */

    static final CountDownLatch READY = new CountDownLatch(2);
    static final CountDownLatch RELEASE = new CountDownLatch(1);

    static void work(List<Object> mine, Object lock) {
        List<Object> local = new ArrayList<>(mine);   /* referenced only from this frame */
        synchronized (lock) {
            READY.countDown();
            try {
                RELEASE.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (local.isEmpty()) System.out.print("");
    }

    List<Thread> startWorkers() throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            List<Object> mine = new ArrayList<>();
            for (int i = 0; i < 200; i++) mine.add(str(sentence(5, 60)));
            Object lock = new Object();
            WORKER_DATA.add(lock);
            Thread th = new Thread(() -> work(mine, lock), "worker-" + (t + 1));
            th.setDaemon(true);
            th.start();
            threads.add(th);
        }
        READY.await();
        return threads;
    }

    /* ---- Driver. ---- */

    static void usage(String msg) {
        if (msg != null) System.err.println("MakeDump: " + msg);
        System.err.println("usage: MakeDump [--seed N] [--big-frac F] [--mix app|instances|strings] SIZE_MB OUT.hprof");
        System.exit(2);
    }

    public static void main(String[] args) throws Exception {
        long seed = 1;
        double bigFrac = 0.72;
        String mix = "app";
        List<String> pos = new ArrayList<>();
        try {
            for (int i = 0; i < args.length; i++) {
                if (args[i].equals("--seed") && i + 1 < args.length) seed = Long.parseLong(args[++i]);
                else if (args[i].equals("--big-frac") && i + 1 < args.length) bigFrac = Double.parseDouble(args[++i]);
                else if (args[i].equals("--mix") && i + 1 < args.length) mix = args[++i];
                else if (args[i].startsWith("--")) usage("unknown option " + args[i]);
                else pos.add(args[i]);
            }
        } catch (NumberFormatException e) {
            usage("bad number: " + e.getMessage());
        }
        if (pos.size() != 2) usage(null);
        long sizeMb = 0;
        try {
            sizeMb = Long.parseLong(pos.get(0));
        } catch (NumberFormatException e) {
            usage("bad SIZE_MB: " + pos.get(0));
        }
        if (sizeMb < 8) usage("SIZE_MB must be at least 8");
        if (!(bigFrac >= 0 && bigFrac <= 0.95)) usage("--big-frac must be within 0..0.95");
        if (!mix.equals("app") && !mix.equals("instances") && !mix.equals("strings"))
            usage("--mix must be app, instances or strings");
        String out = pos.get(1);
        if (!out.endsWith(".hprof")) usage("OUT must end in .hprof");
        if (new File(out).exists()) usage(out + " exists");

        long t0 = System.nanoTime();
        long target = (sizeMb << 20) - BASELINE;
        long bigBudget = (long) (target * bigFrac);
        long smallBudget = target - bigBudget;
        /* the estimates of --mix instances come out some 40 % above the
         * dump HotSpot writes (shared boxes, headers): measured, corrected */
        if (mix.equals("instances")) smallBudget = smallBudget * 14 / 10;
        /* Buffers up to 16 MiB, smaller for small dumps so there are many of them. */
        long maxBig = Math.max(64 << 10, Math.min(16L << 20, bigBudget / 24));

        MakeDump g = new MakeDump(seed);
        g.mix = mix;
        for (String p : new String[] { "http-io", "image-cache", "jdbc-rows", "metrics", "scratch" })
            POOLS.add(new BufferPool(p));

        /* Interleave small objects and big arrays, as in a live application. */
        while (g.smallEst < smallBudget || g.bigEst < bigBudget) {
            double smallDone = smallBudget == 0 ? 1 : (double) g.smallEst / smallBudget;
            double bigDone = bigBudget == 0 ? 1 : (double) g.bigEst / bigBudget;
            if (g.bigEst < bigBudget && bigDone <= smallDone)
                g.bigStep(maxBig, bigBudget - g.bigEst);
            else
                g.smallStep();
        }
        List<Thread> workers = g.startWorkers();
        long t1 = System.nanoTime();

        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(out, true);
        long t2 = System.nanoTime();

        RELEASE.countDown();
        for (Thread th : workers) th.join();

        long actual = new File(out).length();
        long est = BASELINE + g.smallEst + g.bigEst;
        System.err.printf("MakeDump: seed %d, %d customers, %d sessions, %d events, %d big arrays%n",
                          seed, CUSTOMERS.size(), SESSIONS.size(), EVENTS.size(),
                          POOLS.stream().mapToInt(p -> p.buffers.size()).sum());
        System.err.printf("MakeDump: wrote %s: %d bytes (%.1f MiB; estimate %.1f MiB, "
                          + "primitive payload ~%.0f%%); build %.1fs, dump %.1fs%n",
                          out, actual, actual / 1048576.0, est / 1048576.0,
                          100.0 * g.payloadEst / Math.max(1, actual),
                          (t1 - t0) / 1e9, (t2 - t1) / 1e9);
    }
}
