/* SPDX-License-Identifier: Apache-2.0 */
package com.example.shop;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;

/* Builds a small object graph, parks a thread 40 frames deep, and dumps
 * its own heap to the file named by args[0]. */
public class Main {
    public static void main(String[] args) throws Exception {
        final Warehouse w = new Warehouse(50);
        final CountDownLatch parked = new CountDownLatch(1);
        Thread t = new Thread(() -> w.descend(40, parked), "deep-stack");
        t.setDaemon(true);
        t.start();
        parked.await();
        long sum = 0;
        for (Product p : w.products)
            sum += p.checksum();
        HotSpotDiagnosticMXBean bean = ManagementFactory.newPlatformMXBeanProxy(
                ManagementFactory.getPlatformMBeanServer(),
                "com.sun.management:type=HotSpotDiagnostic", HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        System.out.println("checksum " + sum + " aisles " + w.aisles.length);
    }
}
