/* SPDX-License-Identifier: Apache-2.0 */
package com.example.shop;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/* A deep stack through a few methods of two classes, parked at the bottom
 * so the dump holds it as a thread's frames. */
public class Warehouse {
    final Product[] products;
    final Product[][] aisles;

    Warehouse(int n) {
        products = new Product[n];
        for (int i = 0; i < n; i++)
            products[i] = new Product("item" + i, i * 7);
        for (int i = 1; i < n; i++)
            products[i].related = new Product[] {products[i - 1]};
        aisles = new Product[][] {products, {products[0]}};
    }

    void descend(int depth, CountDownLatch parked) {
        if (depth == 0) {
            park(parked);
            return;
        }
        if (depth % 2 == 0)
            Picker.pick(this, depth - 1, parked);
        else
            descend(depth - 1, parked);
    }

    private static void park(CountDownLatch parked) {
        parked.countDown();
        while (true)
            LockSupport.park();
    }

    static class Picker {
        static void pick(Warehouse w, int depth, CountDownLatch parked) {
            w.descend(depth, parked);
        }
    }
}
