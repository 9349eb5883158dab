package dev.ledgerlab.lab;

import dev.ledgerlab.infra.EmbeddedStack;
import dev.ledgerlab.infra.JavaCommand;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import tools.jackson.databind.json.JsonMapper;

/**
 * The lab's services each in a JVM of its own ({@code ./ledger-lab --processes}), supervised by the lab's JVM, which
 * keeps PostgreSQL and Kafka: started together, their lines in the lab's output (each naming its service), started
 * again when one exits while the lab runs (a learner's {@code kill -9}, a crash), stopped with the lab. A service
 * outlives neither: {@link ServiceMain} exits when its standard input, a pipe from this JVM, ends.
 *
 * <p>Written here rather than taken from a library: supervising child JVMs is what systemd, Docker or Kubernetes do
 * outside Java, and the lab runs with nothing installed but Java 17.
 */
final class ServiceProcesses implements RunningServices {

    /**
     * Each service's JVM: small heaps and the serial collector, as the lab's own (lab/jvm.options); the lab's class
     * data archive too, when it maps one (the same classpath, so the same classes).
     */
    private static final List<String> JVM_FLAGS = List.of("-XX:+UseSerialGC", "-Xms32m", "-Xmx192m",
            "-XX:+UnlockExperimentalVMOptions", "-XX:+IgnoreUnrecognizedVMOptions", "-XX:TrimNativeHeapInterval=5000",
            "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    private static final Duration READY_WITHIN = Duration.ofMinutes(2);
    private static final HttpClient STATUS = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** The topic's partitions: a member more would hold none. */
    static final int MOST_PROJECTORS = 6;
    /** The first restart after an exit; doubled while a service keeps exiting soon after it started, up to the most. */
    private static final Duration FIRST_RESTART = Duration.ofSeconds(1);
    private static final Duration MOST_RESTART = Duration.ofSeconds(30);
    private static final String STARTED_AGAIN = "the lab starts it again after 1 s (longer, up to 30 s, while it keeps"
            + " exiting soon after starting; its output says when)";

    /** In the order they started; replaced whole when a projector is added, so a reader never sees it change. */
    private volatile Map<String, Child> children;
    private final ScheduledThreadPoolExecutor supervisor;
    /** How to start one more member of the projectors' group ({@link #addProjector}). */
    private volatile Supplier<Child> nextProjector;
    private volatile boolean closing;
    private final AtomicInteger signalledToStop = new AtomicInteger();

    private ServiceProcesses(Map<String, Child> children, ScheduledThreadPoolExecutor supervisor) {
        this.children = children;
        this.supervisor = supervisor;
    }

    /**
     * Starts the named services side by side, the command API at once, the relay and the projector once {@code
     * kafkaReady} returns, and waits until each is ready; on failure stops those that started and throws.
     */
    static ServiceProcesses start(LabServices.Infrastructure infrastructure, LabServices.Ports ports, String bind,
            List<String> passThrough, Set<String> services, int projectors, int labPort, Runnable kafkaReady) {
        // A thread per service: one service's restart waits for its readiness, and must not hold up another's.
        var supervisor = new ScheduledThreadPoolExecutor(LabServices.ALL.size() + projectors - 1, runnable -> {
            var thread = new Thread(runnable, "ledger-lab-supervisor");
            thread.setDaemon(true);
            return thread;
        });
        int apiPort = port(ports.commandApi());
        var children = new LinkedHashMap<String, Child>();
        var lab = new ServiceProcesses(children, supervisor);
        var flags = new ArrayList<>(JVM_FLAGS);
        // The lab's class archive, and the JIT it was told to stop at: C1 only in the tests (surefire's argLine), where
        // a service lives a minute and C2 would compile for most of it: LabProcessesTest's seven took 99 s of CPU in
        // a test of 59 s with C2, 46 s in 39 s without.
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(flag -> flag.startsWith("-XX:SharedArchiveFile=") || flag.startsWith("-XX:TieredStopAtLevel="))
                .forEach(flags::add);
        if (services.contains(LabServices.COMMAND_API)) {
            children.put(LabServices.COMMAND_API, lab.new Child(LabServices.COMMAND_API, apiPort, bind, flags,
                    LabServices.arguments(infrastructure, apiPort, passThrough)));
        }
        if (services.contains(LabServices.OUTBOX_RELAY)) {
            int port = port(ports.relay());
            children.put(LabServices.OUTBOX_RELAY, lab.new Child(LabServices.OUTBOX_RELAY, port, bind, flags,
                    LabServices.arguments(infrastructure, port, passThrough)));
        }
        // Members of one consumer group: projector, projector-2, ... each on a port of its own.
        // The page each projector serves reads the lab's processes and sends its faults to the lab's port (LabControl).
        var projectorArgs = new ArrayList<>(LabServices.projectorArguments(apiPort, passThrough));
        projectorArgs.add(0, "--projector.page.lab-url=http://localhost:" + labPort);
        for (int member = 1; services.contains(LabServices.PROJECTOR) && member <= projectors; member++) {
            var name = member == 1 ? LabServices.PROJECTOR : LabServices.PROJECTOR + "-" + member;
            int port = member == 1 ? port(ports.projector()) : EmbeddedStack.freeListenPort();
            children.put(name, lab.new Child(name, port, bind, flags,
                    LabServices.arguments(infrastructure, port, projectorArgs)));
        }
        if (services.contains(LabServices.PROJECTOR)) {
            lab.nextProjector = () -> {
                int port = EmbeddedStack.freeListenPort();
                var name = LabServices.PROJECTOR + "-" + (lab.projectors() + 1);
                return lab.new Child(name, port, bind, flags, LabServices.arguments(infrastructure, port,
                        projectorArgs));
            };
        }
        try {
            var starts = children.values().stream().map(child -> CompletableFuture.runAsync(() -> {
                if (!child.service.equals(LabServices.COMMAND_API)) {
                    kafkaReady.run();
                }
                child.spawn();
                child.awaitReady();
            }, runnable -> {
                var thread = new Thread(runnable, "start-" + child.service);
                thread.setDaemon(true);
                thread.start();
            })).toList();
            starts.forEach(CompletableFuture::join);
            return lab;
        } catch (RuntimeException e) {
            lab.close();
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    private static int port(int port) {
        return port != 0 ? port : EmbeddedStack.freeListenPort();
    }

    @Override
    public int port(String service) {
        var child = children.get(service);
        return child == null ? 0 : child.port;
    }

    @Override
    public OptionalLong pid(String service) {
        var child = children.get(service);
        var process = child == null ? null : child.process;
        return process == null ? OptionalLong.empty() : OptionalLong.of(process.pid());
    }

    /** The ports the projectors' pages are served on. */
    Set<Integer> projectorPorts() {
        var ports = new java.util.HashSet<Integer>();
        children.values().stream().filter(child -> ServiceMain.kind(child.service).equals(LabServices.PROJECTOR))
                .forEach(child -> ports.add(child.port));
        return ports;
    }

    /** How many members the projectors' group has. */
    private int projectors() {
        return (int) children.keySet().stream().filter(name -> ServiceMain.kind(name).equals(LabServices.PROJECTOR))
                .count();
    }

    /**
     * {@code ./ledger-lab break add projector}: one more member of the projectors' group, as {@code --projectors} would
     * have started it, supervised like the others; waits until it is ready. At most one member per partition: a
     * seventh would hold none.
     */
    synchronized Map<String, Object> addProjector() {
        var answer = new LinkedHashMap<String, Object>();
        answer.put("service", LabServices.PROJECTOR);
        answer.put("fault", "add");
        int members = projectors();
        if (nextProjector == null || closing || members >= MOST_PROJECTORS) {
            answer.put("did", nextProjector == null ? "nothing: this lab runs no projector"
                    : "nothing: the group has %d members, one per partition; another would hold none".formatted(
                            members));
            answer.put("watch", "assignedHere in each member's /projection/status");
            return answer;
        }
        var child = nextProjector.get();
        supervisor.setCorePoolSize(supervisor.getCorePoolSize() + 1);
        var next = new LinkedHashMap<>(children);
        next.put(child.service, child);
        children = next;
        child.spawn();
        child.awaitReady();
        answer.put("service", child.service);
        answer.put("pid", child.process.pid());
        answer.put("port", child.port);
        answer.put("did", "started %s (pid %d, port %d): member %d of the projectors' group".formatted(child.service,
                child.process.pid(), child.port, members + 1));
        answer.put("watch", ("the group rebalances: a pause in what is applied while it does, then each member holds"
                + " some of the %d partitions (assignedHere in each member's status; this one's: curl -s"
                + " localhost:%d/projection/status); each reads on from the offsets stored with the balances")
                        .formatted(MOST_PROJECTORS, child.port));
        return answer;
    }

    /** The faults {@code ./ledger-lab break} does to a service's process; add grows the projectors' group. */
    enum Fault {
        KILL, FREEZE, THAW, RESTART, ADD;

        /** The fault by its name on the command line, or null. */
        static Fault named(String name) {
            for (var fault : values()) {
                if (fault.name().equalsIgnoreCase(name)) {
                    return fault;
                }
            }
            return null;
        }
    }

    /** The services this lab runs, in the order they start (projector-2 and on: more members of the group). */
    java.util.Collection<String> names() {
        return children.keySet();
    }

    /**
     * Does {@code fault} to {@code service}'s process (only ever one this lab started, by the pid it keeps), waits
     * until it took effect, and says what happened and what to watch.
     */
    Map<String, Object> fault(Fault fault, String service) {
        var child = children.get(service);
        var process = child.process;
        var answer = new LinkedHashMap<String, Object>();
        answer.put("service", service);
        answer.put("fault", fault.name().toLowerCase(java.util.Locale.ROOT));
        answer.put("pid", process.pid());
        if (!process.isAlive()) {
            answer.put("did", "nothing: " + service + " is not running; the lab is starting it again");
            answer.put("watch", "its lines in the lab's output");
            return answer;
        }
        try {
            switch (fault) {
                case KILL -> {
                    process.destroyForcibly();
                    int code = process.onExit().get(30, TimeUnit.SECONDS).exitValue();
                    child.exitSeen.get(10, TimeUnit.SECONDS);
                    answer.put("exitCode", code);
                    answer.put("did", "SIGKILL: %s (pid %d) exited with code %d; %s".formatted(service,
                            process.pid(), code, STARTED_AGAIN));
                }
                case RESTART -> {
                    // As the lab's close does: its standard input ends, and it stops as on Ctrl-C.
                    process.getOutputStream().close();
                    int code = process.onExit().get(60, TimeUnit.SECONDS).exitValue();
                    child.exitSeen.get(10, TimeUnit.SECONDS);
                    answer.put("exitCode", code);
                    answer.put("did", "%s (pid %d) stopped (exit code %d); %s".formatted(service, process.pid(),
                            code, STARTED_AGAIN));
                }
                case FREEZE, THAW -> {
                    var signal = fault == Fault.FREEZE ? "STOP" : "CONT";
                    // The JDK sends only SIGTERM and SIGKILL; kill(1) (procps) sends the rest.
                    var kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO()
                            .start();
                    if (kill.waitFor() != 0) {
                        throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
                    }
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (stopped(process.pid()) != (fault == Fault.FREEZE) && System.nanoTime() < deadline) {
                        Thread.sleep(50);
                    }
                    answer.put("state", stopped(process.pid()) ? "T (stopped)" : "running");
                    answer.put("did", fault == Fault.FREEZE
                            ? "SIGSTOP: %s (pid %d) is frozen; ./ledger-lab break thaw %s wakes it".formatted(service,
                                    process.pid(), service)
                            : "SIGCONT: %s (pid %d) runs again".formatted(service, process.pid()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(service + " did not exit", e);
        }
        answer.put("watch", watch(fault, service));
        return answer;
    }

    /** What the fault shows, and where. */
    private String watch(Fault fault, String service) {
        var status = "curl -s localhost:%d/projection/status".formatted(port(LabServices.PROJECTOR));
        return switch (ServiceMain.kind(service)) {
            case LabServices.OUTBOX_RELAY -> fault == Fault.THAW
                    ? "the backlog drains; the lag falls (" + status + ")"
                    : "commands are still answered, their events wait in the outbox and the lag rises (" + status
                            + "); once it runs again it publishes from its stored offset, and the projector skips what"
                            + " it had applied (duplicates)";
            case LabServices.PROJECTOR -> fault == Fault.THAW
                    ? "the lag falls as it applies from the offsets stored with the balances (" + status + ")"
                    : "the lag rises; past its 10 s session the group drops it and gives its partitions to another"
                            + " member, if there is one (assignedHere); what a member reads again below the stored"
                            + " offsets it skips (redeliveredSinceStart, in " + status + ")";
            default -> fault == Fault.THAW
                    ? "it answers again"
                    : "clients get no answer until it runs again; a retry with the same Idempotency-Key is answered"
                            + " once, from the first attempt if that one committed";
        };
    }

    /** Whether the process is stopped (state T in /proc). */
    private static boolean stopped(long pid) {
        try {
            var stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("T");
        } catch (IOException gone) {
            return false;
        }
    }

    /** Each service's process as it is now: pid, port, state (running, stopped, down), restarts, last exit code. */
    List<Map<String, Object>> describe() {
        var described = new ArrayList<Map<String, Object>>();
        children.values().forEach(child -> {
            var process = child.process;
            var one = new LinkedHashMap<String, Object>();
            one.put("service", child.service);
            one.put("pid", process == null ? null : process.pid());
            one.put("port", child.port);
            one.put("state", process == null || !process.isAlive() ? "down" : stopped(process.pid()) ? "stopped"
                    : "running");
            one.put("restarts", child.restarts);
            one.put("lastExit", child.lastExit);
            if (ServiceMain.kind(child.service).equals(LabServices.PROJECTOR) && "running".equals(one.get("state"))) {
                var membership = child.membership();
                one.put("partitions", membership == null ? null : membership.partitions());
                one.put("redelivered", membership == null ? null : membership.redelivered());
            }
            described.add(one);
        });
        return described;
    }

    /** How many times the lab started {@code service} again after it exited. */
    int restarts(String service) {
        return children.get(service).restarts;
    }

    /** Services that did not stop when their standard input ended, and were sent a signal ({@link #close}). */
    int signalledToStop() {
        return signalledToStop.get();
    }

    /** The exit code of {@code service}'s last process that exited while the lab ran; -1 if none did. */
    int lastExit(String service) {
        return children.get(service).lastExit;
    }

    /**
     * Stops the projector, the relay, then the command API, as a killed lab's JVM would: by ending each one's standard
     * input ({@link ServiceMain} then exits as on Ctrl-C). One still running 30 s later gets SIGTERM, then SIGKILL.
     */
    @Override
    public void close() {
        closing = true;
        supervisor.shutdownNow();
        var order = new ArrayList<>(children.values());
        java.util.Collections.reverse(order);
        for (var child : order) {
            child.stop();
        }
    }

    /** One service's process, and each one that replaces it. */
    private final class Child {

        private final String service;
        private final int port;
        private final URI readiness;
        private final List<String> command;
        private volatile Process process;
        private volatile long startedNanos;
        private volatile Duration nextRestart = FIRST_RESTART;
        private volatile int restarts;
        private volatile int lastExit = -1;
        /** Done once the lab has recorded the current process's exit: a fault answers after it, status agrees. */
        private volatile java.util.concurrent.CompletableFuture<Void> exitSeen;

        Child(String service, int port, String bind, List<String> flags, List<String> args) {
            this.service = service;
            this.port = port;
            // Asked where it listens; on every interface, this machine's loopback reaches it.
            var host = bind.equals("0.0.0.0") || bind.equals("::") ? "127.0.0.1" : bind;
            this.readiness = URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port
                    + "/actuator/health/readiness");
            var all = new ArrayList<String>();
            all.add(service);
            all.addAll(args);
            this.command = JavaCommand.of(ServiceMain.class, flags, all);
        }

        synchronized void spawn() {
            try {
                // Standard input stays a pipe from this JVM: the service stops when it ends (ServiceMain).
                var started = new ProcessBuilder(command).redirectErrorStream(true).start();
                startedNanos = System.nanoTime();
                process = started;
                var output = new Thread(() -> copyOutput(started), service + "-output");
                output.setDaemon(true);
                output.start();
                exitSeen = started.onExit().thenAccept(this::exited);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start " + service, e);
            }
        }

        /** Its lines into the lab's output as they come (each names the service: ServiceNames). */
        private void copyOutput(Process from) {
            try (var lines = new BufferedReader(new InputStreamReader(from.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    System.out.println(line);
                }
            } catch (IOException ended) {
                // The process is gone.
            }
        }

        /**
         * The partitions this projector's consumers hold now and what it read again below the stored offsets since
         * it started, as its status says; null when it does not answer within a moment (starting, or frozen).
         */
        Membership membership() {
            var request = HttpRequest.newBuilder(readiness.resolve("/projection/status"))
                    .timeout(Duration.ofMillis(700)).build();
            try {
                var response = STATUS.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() != 200) {
                    return null;
                }
                var status = JSON.readTree(response.body());
                var partitions = new ArrayList<Integer>();
                status.path("assignedHere").forEach(n -> partitions.add(n.asInt()));
                return new Membership(partitions, status.path("redeliveredSinceStart").asLong());
            } catch (IOException | RuntimeException notNow) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        void awaitReady() {
            var client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            var request = HttpRequest.newBuilder(readiness).timeout(Duration.ofSeconds(5)).build();
            long deadline = System.nanoTime() + READY_WITHIN.toNanos();
            var awaited = process;
            while (System.nanoTime() < deadline) {
                if (!awaited.isAlive()) {
                    throw new IllegalStateException(service + " (pid " + awaited.pid() + ") exited with code "
                            + awaited.exitValue() + " as it started: its lines above say why");
                }
                try {
                    if (client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        return;
                    }
                } catch (IOException notYet) {
                    // Not listening yet.
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while " + service + " started", e);
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while " + service + " started", e);
                }
            }
            throw new IllegalStateException(service + " was not ready within " + READY_WITHIN);
        }

        /** Starts it again unless the lab is stopping; sooner after a long run, later after a short one. */
        private void exited(Process gone) {
            if (closing || gone != process) {
                return;
            }
            lastExit = gone.exitValue();
            long ranNanos = System.nanoTime() - startedNanos;
            var delay = ranNanos > MOST_RESTART.toNanos() ? FIRST_RESTART : nextRestart;
            nextRestart = delay.multipliedBy(2).compareTo(MOST_RESTART) > 0 ? MOST_RESTART : delay.multipliedBy(2);
            System.out.printf("%n%s (pid %d) exited with code %d%s; the lab starts it again in %d s%n%n", service,
                    gone.pid(), lastExit, lastExit == 137 ? " (SIGKILL)" : "", delay.toSeconds());
            long exitedNanos = System.nanoTime();
            try {
                supervisor.schedule(() -> restart(exitedNanos), delay.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                // The lab is stopping.
            }
        }

        private void restart(long exitedNanos) {
            if (closing) {
                return;
            }
            try {
                spawn();
                restarts++;
                awaitReady();
                System.out.printf("%n%s is up again as pid %d, %.1f s after it exited%n%n", service, process.pid(),
                        (System.nanoTime() - exitedNanos) / 1e9);
            } catch (RuntimeException e) {
                // Its exit, if it exited, schedules the next attempt.
                System.out.printf("%n%s did not come up again: %s%n%n", service, e.getMessage());
            }
        }

        synchronized void stop() {
            var running = process;
            if (running == null || !running.isAlive()) {
                return;
            }
            try {
                running.getOutputStream().close();
            } catch (IOException alreadyClosed) {
                // The pipe is gone already.
            }
            try {
                if (!running.waitFor(30, TimeUnit.SECONDS)) {
                    signalledToStop.incrementAndGet();
                    running.destroy();
                    if (!running.waitFor(30, TimeUnit.SECONDS)) {
                        running.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running.destroyForcibly();
            }
        }
    }

    /** A projector's place in its group: {@code assignedHere} and {@code redeliveredSinceStart} of its status. */
    record Membership(List<Integer> partitions, long redelivered) {
    }
}
