package dev.ledgerlab.lab;

import dev.ledgerlab.commandapi.CommandApiApplication;
import dev.ledgerlab.projector.ProjectorApplication;
import dev.ledgerlab.relay.OutboxRelayApplication;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The {@code main} of one service in a JVM of its own, as the lab starts it with {@code --processes}
 * ({@link ServiceProcesses}): {@code ServiceMain <service>[-N] [--property=value ...]} (projector-2: a second
 * projector). Every line the process logs names the service, and the process stops (gracefully, as on Ctrl-C) when
 * its standard input ends: that is a pipe from the lab's JVM, which ends when the lab's JVM is gone, even after a
 * {@code kill -9}, so no service outlives its lab.
 */
public final class ServiceMain {

    private static final Map<String, Consumer<String[]>> MAINS = Map.of(
            LabServices.COMMAND_API, CommandApiApplication::main,
            LabServices.OUTBOX_RELAY, OutboxRelayApplication::main,
            LabServices.PROJECTOR, ProjectorApplication::main);

    private ServiceMain() {
    }

    /** The service a process name runs: projector-2 is a projector. */
    static String kind(String name) {
        return name.replaceFirst("-\\d+$", "");
    }

    public static void main(String[] args) {
        var main = args.length == 0 ? null : MAINS.get(kind(args[0]));
        if (main == null) {
            System.err.println("usage: ServiceMain " + String.join("|", LabServices.ALL) + " [--property=value ...]");
            System.exit(2);
            return;
        }
        ServiceNames.wholeProcess(args[0]);
        var watch = new Thread(ServiceMain::exitWhenTheLabIsGone, "lab-watch");
        watch.setDaemon(true);
        watch.start();
        main.accept(Arrays.copyOfRange(args, 1, args.length));
    }

    private static void exitWhenTheLabIsGone() {
        try {
            while (System.in.read() >= 0) {
                // The lab never writes; anything it did would be ignored.
            }
        } catch (IOException ended) {
            // As good as the end of the stream.
        }
        System.exit(0);
    }
}
