/* SPDX-License-Identifier: Apache-2.0 */
package com.example.shop;

/* Fields of every primitive type, a String, arrays of its own class, a
 * static nested class and an inner class: what a mapping has to rename. */
public class Product {
    boolean onSale = true;
    byte grade = 7;
    char code = 'Q';
    short shelf = 1234;
    int stock = 123456;
    long barcode = 4006381333931L;
    float weight = 1.5f;
    double price = 19.99;
    String name;
    Product[] related = new Product[0];
    Tag[] tags;
    Review review;

    static class Tag {
        final String label;
        final int priority;

        Tag(String label, int priority) {
            this.label = label;
            this.priority = priority;
        }
    }

    class Review {
        final int stars;
        final String text;

        Review(int stars, String text) {
            this.stars = stars;
            this.text = text;
        }

        String owner() {
            return name;
        }
    }

    Product(String name, int stock) {
        this.name = name;
        this.stock = stock;
        this.tags = new Tag[] {new Tag("fresh", stock % 3), new Tag("local", 1)};
        this.review = new Review(stock % 5 + 1, "fine " + name);
    }

    long checksum() {
        long s = (onSale ? 1 : 0) + grade + code + shelf + stock + barcode;
        s += (long) weight + (long) price + name.length() + related.length;
        for (Tag t : tags)
            s += t.label.length() + t.priority;
        return s + review.stars + review.owner().length() + review.text.length();
    }
}
