package dev.ledgerlab.bench;

import dev.ledgerlab.relay.RelayProperties;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Deposits at a fixed offered rate, scheduled by the clock rather than by the answers (an open loop): request
 * {@code i} is due at {@code start + i / rate}, and its latency is counted from then, not from when a busy client got
 * round to sending it, so a stall counts against every request it delays (coordinated omission corrected, as in
 * wrk2). Every {@code sampleEvery}-th deposit is also followed to the projection: from its answer to its balance being
 * visible ({@code ?minVersion=}), and, through the topic's records, its two halves: from the command's event time to
 * the relay's send (the record's timestamp), and from there to visible.
 */
final class OpenLoop {

    /** Every figure in microseconds. */
    record Result(double offeredPerSecond, double achievedPerSecond, Histogram latency, Histogram endToEnd,
            Histogram toRelaySend, Histogram relaySendToVisible) {
    }

    private record Followed(long responseEpochMicros, long visibleEpochMicros) {
    }

    private record Published(long timestampMillis, long occurredAtMicros) {
    }

    private OpenLoop() {
    }

    static Result run(CommandClient client, List<UUID> accounts, double ratePerSecond, Duration duration, int workers,
            int sampleEvery, String bootstrapServers) {
        var latency = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(2), 3);
        var endToEnd = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(2), 3);
        var followed = new ConcurrentHashMap<UUID, Followed>();
        var published = new ConcurrentHashMap<String, Published>();
        var failure = new AtomicReference<Throwable>();
        var watching = new AtomicBoolean(true);
        var watcherReady = new CountDownLatch(1);
        var watcher = new Thread(() -> watch(bootstrapServers, published, watching, watcherReady, failure),
                "bench-topic-watch");
        watcher.start();
        try {
            if (!watcherReady.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the topic watcher did not start: " + failure.get());
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        ExecutorService followers = Executors.newFixedThreadPool(32);
        long interval = (long) (1e9 / ratePerSecond);
        long total = (long) (duration.toNanos() / (double) interval);
        var next = new AtomicLong();
        var completed = new AtomicLong();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        var threads = new ArrayList<Thread>();
        for (int w = 0; w < workers; w++) {
            var random = new Random(w);
            var thread = new Thread(() -> {
                try {
                    for (long i = next.getAndIncrement(); i < total && failure.get() == null;
                            i = next.getAndIncrement()) {
                        long due = start + i * interval;
                        long wait;
                        while ((wait = due - System.nanoTime()) > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        var account = accounts.get(random.nextInt(accounts.size()));
                        var deposit = client.deposit(account, 1);
                        latency.recordValue(Math.max(0, (System.nanoTime() - due) / 1_000));
                        completed.incrementAndGet();
                        if (i % sampleEvery == 0) {
                            long answered = epochMicros();
                            followers.execute(() -> {
                                try {
                                    client.awaitVisible(account, deposit.version());
                                    long visible = epochMicros();
                                    endToEnd.recordValue(visible - answered);
                                    followed.put(deposit.eventId(), new Followed(answered, visible));
                                }
                                catch (Throwable e) {
                                    failure.compareAndSet(null, e);
                                }
                            });
                        }
                    }
                }
                catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-open-loop-" + w);
            threads.add(thread);
            thread.start();
        }
        for (var thread : threads) {
            join(thread);
        }
        double achieved = completed.get() / ((System.nanoTime() - start) / 1e9);
        followers.shutdown();
        try {
            followers.awaitTermination(2, TimeUnit.MINUTES);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // The last followed events' records reach the topic before they are visible; a moment for the watcher.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline && !published.keySet().containsAll(
                followed.keySet().stream().map(UUID::toString).toList())) {
            Pause.millis(50);
        }
        watching.set(false);
        join(watcher);
        if (failure.get() != null) {
            throw new IllegalStateException("the open-loop run failed: " + failure.get(), failure.get());
        }
        var toRelaySend = new Histogram(TimeUnit.MINUTES.toMicros(2), 3);
        var sendToVisible = new Histogram(TimeUnit.MINUTES.toMicros(2), 3);
        followed.forEach((eventId, times) -> {
            var record = published.get(eventId.toString());
            if (record != null) {
                toRelaySend.recordValue(Math.max(0, record.timestampMillis() * 1_000 - record.occurredAtMicros()));
                sendToVisible.recordValue(Math.max(0, times.visibleEpochMicros() - record.timestampMillis() * 1_000));
            }
        });
        return new Result(ratePerSecond, achieved, latency, endToEnd, toRelaySend, sendToVisible);
    }

    /** Reads the relay's topic from its end while the run lasts: each record's event id, timestamp and event time. */
    private static void watch(String bootstrapServers, Map<String, Published> published, AtomicBoolean watching,
            CountDownLatch ready, AtomicReference<Throwable> failure) {
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"), new StringDeserializer(), new StringDeserializer())) {
            var partitions = consumer.partitionsFor(RelayProperties.DEFAULT_TOPIC).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
            ready.countDown();
            while (watching.get()) {
                for (var record : consumer.poll(Duration.ofMillis(100))) {
                    var eventId = record.headers().lastHeader("eventId");
                    if (eventId != null) {
                        var occurredAt = Instant.parse(CommandClient.field(record.value(), "occurredAt"));
                        published.put(new String(eventId.value(), StandardCharsets.UTF_8),
                                new Published(record.timestamp(), occurredAt.getEpochSecond() * 1_000_000
                                        + occurredAt.getNano() / 1_000));
                    }
                }
            }
        }
        catch (Throwable e) {
            failure.compareAndSet(null, e);
        }
    }

    private static long epochMicros() {
        var now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
