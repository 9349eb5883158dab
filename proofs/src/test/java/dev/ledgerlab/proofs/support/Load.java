package dev.ledgerlab.proofs.support;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Deposits flowing through the command API from a few client threads until stopped. It remembers what every
 * accepted deposit added, so a proof can compare the projection with what clients were told.
 */
public final class Load implements AutoCloseable {

    private final ExecutorService clients;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong accepted = new AtomicLong();
    private final Map<UUID, AtomicLong> sums = new ConcurrentHashMap<>();
    private final List<Future<?>> workers = new java.util.ArrayList<>();

    public Load(ServiceProcess commandApi, List<UUID> accounts, int threads, long seed) {
        clients = Executors.newFixedThreadPool(threads);
        accounts.forEach(a -> sums.put(a, new AtomicLong()));
        for (int t = 0; t < threads; t++) {
            var random = new Random(seed + t);
            workers.add(clients.submit(() -> {
                while (running.get()) {
                    var account = accounts.get(random.nextInt(accounts.size()));
                    long amount = 1 + random.nextInt(10_000);
                    var response = Pipeline.deposit(commandApi, account, amount);
                    if (response.statusCode() != 200) {
                        throw new IllegalStateException("deposit refused: " + response.statusCode() + " "
                                + response.body());
                    }
                    sums.get(account).addAndGet(amount);
                    accepted.incrementAndGet();
                }
                return null;
            }));
        }
    }

    public long accepted() {
        return accepted.get();
    }

    public long sum(UUID account) {
        return sums.get(account).get();
    }

    /** Stops the clients and rethrows what any of them failed with. */
    @Override
    public void close() throws Exception {
        running.set(false);
        try {
            for (var worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
    }
}
