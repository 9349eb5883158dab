package dev.ledgerlab.proofs.support;

import static org.awaitility.Awaitility.await;

import dev.ledgerlab.testkit.CommandApiClient;
import dev.ledgerlab.testkit.TestHttp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Commands flowing through the command API from several client threads until stopped: deposits, and withdrawals
 * that the balance may refuse; or transfers between the accounts ({@link #transfers}). Each client waits {@link #PAUSE}
 * between the answer to one command and the next, so that eight of them leave the two cores to the services under test
 * rather than saturate them: some 60-70 commands per second, enough for batches of several records on several
 * partitions when a fault strikes, while a faster load would take the CPU the services' restarts need. Every command
 * carries an Idempotency-Key of its own; a client that gets no answer (the API killed, the connection broken) or
 * {@code 503 database-unavailable} sends the same request with the same key again, as a careful client would, until
 * it gets an answer (at most two minutes). It remembers what every accepted command did, so a proof can compare the
 * projection with what clients were told.
 */
public final class Load implements AutoCloseable {

    /** At least this many client threads, as the proofs promise. */
    public static final int CLIENTS = 8;
    public static final Duration PAUSE = Duration.ofMillis(100);
    private static final String UNAVAILABLE = "urn:ledgerlab:problem:database-unavailable";
    private static final String INSUFFICIENT_FUNDS = "urn:ledgerlab:problem:insufficient-funds";

    /**
     * @param accepted commands answered 200 (once, whatever the retries)
     * @param refused withdrawals answered 409 insufficient-funds
     * @param unanswered attempts that got no answer at all (connection refused, reset, timed out)
     * @param unavailable attempts answered 503 database-unavailable
     * @param slowestUnavailableMillis the longest any 503 took to arrive
     * @param retried commands that needed more than one attempt
     * @param replayed retries answered from the stored response (Idempotent-Replayed: the first attempt had committed)
     */
 public record Counts(int clients, long accepted, long refused, long unanswered, long unavailable,
            long slowestUnavailableMillis, long retried, long replayed, long seconds, long meanMillis) {
        @Override
        public String toString() {
            return clients + " clients for " + seconds + " s: " + accepted + " accepted (mean answer " + meanMillis
                    + " ms), " + refused + " refused (409), " + retried
                    + " retried with their key after " + unanswered + " unanswered and " + unavailable
                    + " 503 database-unavailable attempts (slowest 503 " + slowestUnavailableMillis + " ms), "
                    + replayed + " answered from the stored response";
        }
    }

    /**
     * One command a client sends next (named for messages; sent under an Idempotency-Key), its success status, and what
     * an accepted one changed.
     */
    private record Command(String name, Function<String, TestHttp.Response> sendWithKey, int acceptedStatus,
            boolean mayBeRefused, Consumer<TestHttp.Response> accepted) {
    }

    private static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    private final ServiceProcess api;
    private final CommandApiClient commands;
    private final int threads;
    private final long began = System.nanoTime();
    private final ScheduledExecutorService clients;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong unanswered = new AtomicLong();
    private final AtomicLong unavailable = new AtomicLong();
    private final AtomicLong slowestUnavailable = new AtomicLong();
    private final AtomicLong retried = new AtomicLong();
    private final AtomicLong replayed = new AtomicLong();
    private final AtomicLong answeredNanos = new AtomicLong();
    private final AtomicLong answers = new AtomicLong();
    private final Map<UUID, AtomicLong> sums = new ConcurrentHashMap<>();
    private final Set<UUID> acceptedEvents = ConcurrentHashMap.newKeySet();
    private final Map<UUID, Long> acceptedTransfers = new ConcurrentHashMap<>();
    private final List<Future<?>> workers = new ArrayList<>();

    public Load(ServiceProcess api, List<UUID> accounts, long seed) {
        this(api, accounts, CLIENTS, seed);
    }

    public Load(ServiceProcess api, List<UUID> accounts, int threads, long seed) {
        this(api, accounts, threads, seed, (load, random) -> load.depositOrWithdrawal(accounts, random));
    }

    /**
     * Transfers between random pairs of {@code accounts}, up to {@code maxAmount} each (the source's balance refuses
     * some), from {@code threads} clients.
     */
    public static Load transfers(ServiceProcess api, List<UUID> accounts, int threads, long maxAmount, long seed) {
        return new Load(api, accounts, threads, seed, (load, random) -> load.transfer(accounts, maxAmount, random));
    }

    private Load(ServiceProcess api, List<UUID> accounts, int threads, long seed,
            BiFunction<Load, Random, Command> workload) {
        this.api = api;
        this.commands = CommandApiClient.at(api.port());
        this.threads = threads;
        clients = Executors.newScheduledThreadPool(threads);
        accounts.forEach(a -> sums.put(a, new AtomicLong()));
        for (int t = 0; t < threads; t++) {
            var random = new Random(seed + t);
            var keyPrefix = "load-" + seed + "-" + t + "-";
            var sequence = new AtomicLong();
            // One command per run; a client that fails stops there, and its future says why (see failFast, close).
            workers.add(clients.scheduleWithFixedDelay(() -> {
                if (!running.get()) {
                    return;
                }
                var command = workload.apply(this, random);
                var response = send(command.sendWithKey(), keyPrefix + sequence.getAndIncrement());
                if (response.status() == command.acceptedStatus()) {
                    command.accepted().accept(response);
                    accepted.incrementAndGet();
                } else if (command.mayBeRefused() && response.status() == 409
                        && INSUFFICIENT_FUNDS.equals(response.problemType())) {
                    refused.incrementAndGet();
                } else {
                    throw new IllegalStateException(command.name() + " answered " + response.status() + " "
                            + response.body() + (response.status() >= 500 ? "\n" + errorsLogged() : ""));
                }
            }, 0, PAUSE.toMillis(), TimeUnit.MILLISECONDS));
        }
    }

    /** What the command API logged as errors and their causes, so that a CI log shows why it answered a 5xx. */
    private String errorsLogged() {
        return "the command API's last errors:" + api.tail(400).lines()
                .filter(line -> line.contains(" ERROR ") || line.startsWith("Caused by:"))
                .map(line -> "\n  " + line).collect(Collectors.joining());
    }

    private Command depositOrWithdrawal(List<UUID> accounts, Random random) {
        var account = accounts.get(random.nextInt(accounts.size()));
        boolean withdraw = random.nextInt(4) == 0;
        long amount = 1 + random.nextInt(withdraw ? 20_000 : 10_000);
        return new Command((withdraw ? "withdrawal of " : "deposit of ") + amount + " on " + account,
                key -> withdraw ? commands.withdraw(account, amount, IDEMPOTENCY_KEY, key)
                        : commands.deposit(account, amount, IDEMPOTENCY_KEY, key), 200, withdraw, response -> {
                    sums.get(account).addAndGet(withdraw ? -amount : amount);
                    acceptedEvents.add(UUID.fromString(response.json().get("eventId").asString()));
                });
    }

    private Command transfer(List<UUID> accounts, long maxAmount, Random random) {
        var from = accounts.get(random.nextInt(accounts.size()));
        var to = accounts.get(random.nextInt(accounts.size() - 1));
        var target = to.equals(from) ? accounts.get(accounts.size() - 1) : to;
        long amount = 1 + (long) (random.nextDouble() * maxAmount);
        return new Command("transfer of " + amount + " from " + from + " to " + target,
                key -> commands.transfer(from, target, amount, IDEMPOTENCY_KEY, key), 201, true, response -> {
                    sums.get(from).addAndGet(-amount);
                    sums.get(target).addAndGet(amount);
                    acceptedTransfers.put(UUID.fromString(response.json().get("transferId").asString()), amount);
                });
    }

    /** One command, sent again with its key for as long as it gets no answer or 503 database-unavailable. */
    private TestHttp.Response send(Function<String, TestHttp.Response> sendWithKey, String key) {
        var first = attempt(sendWithKey, key);
        if (!retryable(first)) {
            return first;
        }
        retried.incrementAndGet();
        var answer = await().atMost(Duration.ofMinutes(2)).pollInSameThread().pollDelay(Duration.ofMillis(200))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> attempt(sendWithKey, key), response -> !retryable(response));
        if ("true".equals(answer.header("Idempotent-Replayed"))) {
            replayed.incrementAndGet();
        }
        return answer;
    }

    private TestHttp.Response attempt(Function<String, TestHttp.Response> sendWithKey, String key) {
        long started = System.nanoTime();
        var response = sendWithKey.apply(key);
        if (response.status() != 0) {
            answeredNanos.addAndGet(System.nanoTime() - started);
            answers.incrementAndGet();
        }
        if (response.status() == 0) {
            unanswered.incrementAndGet();
        } else if (response.status() == 503 && UNAVAILABLE.equals(response.problemType())) {
            unavailable.incrementAndGet();
            slowestUnavailable.accumulateAndGet((System.nanoTime() - started) / 1_000_000, Math::max);
        }
        return response;
    }

    private static boolean retryable(TestHttp.Response response) {
        return response.status() == 0
                || response.status() == 503 && UNAVAILABLE.equals(response.problemType());
    }

    public long accepted() {
        return accepted.get();
    }

    /** What the accepted commands added to this account, withdrawals subtracted. */
    public long sum(UUID account) {
        return sums.get(account).get();
    }

    /** The event id of every accepted command, as its answer gave it. */
    public Set<UUID> acceptedEvents() {
        return Set.copyOf(acceptedEvents);
    }

    /** Every accepted transfer's id and amount, as its answer gave it. */
    public Map<UUID, Long> acceptedTransfers() {
        return Map.copyOf(acceptedTransfers);
    }

    public Counts counts() {
        return new Counts(threads, accepted.get(), refused.get(), unanswered.get(), unavailable.get(), slowestUnavailable.get(),
                retried.get(), replayed.get(), (System.nanoTime() - began) / 1_000_000_000,
                answers.get() == 0 ? 0 : answeredNanos.get() / answers.get() / 1_000_000);
    }

    /** Waits until at least {@code more} commands beyond those accepted so far are accepted. */
    public void awaitMore(long more, Duration timeout) {
        long target = accepted.get() + more;
        await().atMost(timeout).until(() -> {
            failFast();
            return accepted.get() >= target;
        });
    }

    /** A client that failed stops the wait at once, with its failure, instead of timing it out. */
    private void failFast() throws Exception {
        for (var worker : workers) {
            if (worker.isDone() && !worker.isCancelled()) {
                try {
                    worker.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("a load client failed: " + e.getCause(), e.getCause());
                }
            }
        }
    }

    /** Stops the clients (each finishes its command, retries included) and rethrows what any of them failed with. */
    @Override
    public void close() throws Exception {
        if (!running.getAndSet(false)) {
            return;
        }
        try {
            failFast();
            clients.shutdown();
            if (!clients.awaitTermination(150, TimeUnit.SECONDS)) {
                throw new IllegalStateException("a client did not finish its command within 150 s");
            }
            failFast();
        } finally {
            clients.shutdownNow();
        }
    }
}
