/* SPDX-License-Identifier: Apache-2.0 */
// Secrets.java - a small program that plants known secrets in every place a
// heap dump keeps data, then dumps its heap. tests/cli/privacy.sh checks that
// none of them survives `hprof-strip -p privacy`.
//
//   java Secrets.java OUT.hprof
//
// The secrets: Latin-1 and non-Latin-1 String contents, char[] and byte[]
// contents, int/long/double instance fields, static fields (primitive and
// String), and HashMap keys and values. Each numeric secret is a value no
// JVM writes by itself.

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Secrets {
    static final long STATIC_LONG = 0x5EC2E7A15EC2E7A1L;
    static int staticInt = 0x5EC2E7A2;
    static String staticString = new String("SECRET-STATIC-STRING-4f2a");

    static class Account {
        String owner;
        char[] pin;
        byte[] token;
        int balance;
        long card;
        double rate;
        Account next; // a reference: must survive

        Account(int i, Account next) {
            owner = new String("SECRET-OWNER-" + i + "-7c1e");
            pin = ("SECRETPIN" + i).toCharArray();
            token = ("SECRET-TOKEN-BYTES-" + i).getBytes();
            balance = 0x5EC2E7A3;
            card = 0x5EC2E7A45EC2E7A4L;
            rate = Double.longBitsToDouble(0x5EC2E7A55EC2E7A5L);
            this.next = next;
        }
    }

    public static void main(String[] args) throws Exception {
        List<Object> keep = new ArrayList<>();
        Account chain = null;
        for (int i = 0; i < 50; i++)
            chain = new Account(i, chain);
        keep.add(chain);
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < 20; i++)
            map.put(new String("SECRET-KEY-" + i + "-91d3"), new String("SECRET-VALUE-" + i + "-2b8e"));
        keep.add(map);
        keep.add(new String("SECRET-\u00e9\u4e2d\u6587-UTF16-5d7f")); // not Latin-1: UTF-16 bytes
        keep.add(new StringBuilder("SECRET-BUILDER-8a6c"));
        HotSpotDiagnosticMXBean bean =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        // keep everything reachable until the dump is written
        System.out.println(keep.size() + staticInt + STATIC_LONG + staticString.length());
    }
}
