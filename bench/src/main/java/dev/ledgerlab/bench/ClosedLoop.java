package dev.ledgerlab.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Throughput with {@code clients} threads, each sending its next command as soon as the last one is answered (a closed
 * loop: what "N clients" means): after a warm-up, the completed commands are counted over each of several windows.
 */
final class ClosedLoop {

    /** One client thread's work: one command, whatever it is (an HTTP deposit, a JDBC transaction). */
    interface Client extends AutoCloseable {
        void command(int sequence) throws Exception;

        @Override
        default void close() throws Exception {
        }
    }

    /** Makes the client of thread {@code index}; called on that thread. */
    interface Clients {
        Client create(int index) throws Exception;
    }

    private ClosedLoop() {
    }

    /** Sends {@code commands} commands from {@code clients} threads; returns how many per second. */
    static double runCount(int clients, Clients factory, long commands) {
        var remaining = new java.util.concurrent.atomic.AtomicLong(commands);
        var failure = new AtomicReference<Throwable>();
        var threads = new ArrayList<Thread>();
        long started = System.nanoTime();
        for (int t = 0; t < clients; t++) {
            int index = t;
            var thread = new Thread(() -> {
                try (var client = factory.create(index)) {
                    int sequence = 0;
                    while (failure.get() == null && remaining.getAndDecrement() > 0) {
                        client.command(sequence++);
                    }
                }
                catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-client-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        for (var thread : threads) {
            try {
                thread.join();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a client failed: " + failure.get(), failure.get());
        }
        return commands / ((System.nanoTime() - started) / 1e9);
    }

    /** Commands per second in each window. */
    static List<Double> run(int clients, Clients factory, Duration warmup, Duration window, int windows) {
        var rates = new ArrayList<Double>();
        try (var load = start(clients, factory)) {
            Pause.millis(warmup.toMillis());
            for (int w = 0; w < windows && !load.failed(); w++) {
                long before = load.done();
                long started = System.nanoTime();
                Pause.millis(window.toMillis());
                rates.add((load.done() - before) / ((System.nanoTime() - started) / 1e9));
            }
        }
        return rates;
    }

    /** Starts {@code clients} threads sending commands until the returned load is closed. */
    static Running start(int clients, Clients factory) {
        return new Running(clients, factory);
    }

    /** A closed loop under way: how many commands it has completed; closing it stops it and reports a failure. */
    static final class Running implements AutoCloseable {

        private final LongAdder done = new LongAdder();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final List<Thread> threads = new ArrayList<>();

        private Running(int clients, Clients factory) {
            for (int t = 0; t < clients; t++) {
                int index = t;
                var thread = new Thread(() -> {
                    try (var client = factory.create(index)) {
                        int sequence = 0;
                        while (!stop.get()) {
                            client.command(sequence++);
                            done.increment();
                        }
                    }
                    catch (Throwable e) {
                        failure.compareAndSet(null, e);
                        stop.set(true);
                    }
                }, "bench-client-" + t);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
        }

        long done() {
            return done.sum();
        }

        boolean failed() {
            return failure.get() != null;
        }

        @Override
        public void close() {
            stop.set(true);
            for (var thread : threads) {
                try {
                    thread.join(120_000);
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (failure.get() != null) {
                throw new IllegalStateException("a client failed: " + failure.get(), failure.get());
            }
        }
    }
}
