package dev.ledgerlab.lab;

import java.util.OptionalLong;

/** The lab's services, whichever way they run: in the lab's JVM ({@link LabServices}) or each in its own. */
interface RunningServices extends AutoCloseable {

    /** The port {@code service} listens on; 0 when the lab runs without it. */
    int port(String service);

    /** Its own process, when it runs in one. */
    OptionalLong pid(String service);

    @Override
    void close();
}
