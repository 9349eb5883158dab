package dev.ledgerlab.bench;

import dev.ledgerlab.relay.RelayProperties;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The relay's baseline, as a process of its own like the relay: Debezium's embedded engine on the same table, the
 * same slot type (pgoutput, a slot of its own) and the same poll interval, with no transform and a consumer that
 * only counts the events rows it is handed and marks them processed. Prints {@value #STREAMING} once it streams, and
 * for a drain of {@code --expect=N} events, the wall-clock times of its first, 10 %, 90 % and last of them.
 *
 * <p>Arguments: {@code --host --port --database --user --password --slot --publication --offsets=<file>
 * --expect=<n>}.
 */
public final class BareEngineMain {

    static final String STREAMING = "BARE STREAMING";
    static final String MARKS = "BARE MARKS ";

    private BareEngineMain() {
    }

    public static void main(String[] args) throws Exception {
        var options = new java.util.HashMap<String, String>();
        for (var arg : args) {
            var parts = arg.replaceFirst("^--", "").split("=", 2);
            options.put(parts[0], parts[1]);
        }
        long expect = Long.parseLong(options.getOrDefault("expect", "0"));
        var p = new Properties();
        p.setProperty("name", "bench-bare-engine");
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
        p.setProperty("offset.storage.file.filename", options.get("offsets"));
        p.setProperty("offset.flush.interval.ms", "1000");
        p.setProperty("database.hostname", options.get("host"));
        p.setProperty("database.port", options.get("port"));
        p.setProperty("database.dbname", options.get("database"));
        p.setProperty("database.user", options.get("user"));
        p.setProperty("database.password", options.get("password"));
        p.setProperty("topic.prefix", "bench");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", options.get("slot"));
        p.setProperty("publication.name", options.get("publication"));
        p.setProperty("publication.autocreate.mode", "disabled");
        p.setProperty("table.include.list", "ledger.events");
        p.setProperty("snapshot.mode", "no_data");
        p.setProperty("poll.interval.ms", RelayProperties.DEFAULT_POLL_INTERVAL_MS);
        p.setProperty("tombstones.on.delete", "false");
        p.setProperty("extended.headers.enabled", "false");

        var counted = new AtomicLong();
        var marks = new long[4];
        DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> counter = new DebeziumEngine.ChangeConsumer<>() {
            @Override
            public void handleBatch(List<RecordChangeEvent<SourceRecord>> batch,
                    DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
                    throws InterruptedException {
                for (var change : batch) {
                    if (change.record().value() != null && change.record().topic().endsWith("ledger.events")) {
                        long n = counted.incrementAndGet();
                        long now = System.currentTimeMillis();
                        if (n == 1) {
                            marks[0] = now;
                        }
                        if (n == Math.max(1, expect / 10)) {
                            marks[1] = now;
                        }
                        if (n == expect * 9 / 10) {
                            marks[2] = now;
                        }
                        if (n == expect) {
                            marks[3] = now;
                            System.out.println(MARKS + marks[0] + " " + marks[1] + " " + marks[2] + " " + marks[3]);
                            System.out.flush();
                        }
                    }
                    committer.markProcessed(change);
                }
                committer.markBatchFinished();
            }
        };
        try (var engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class)).using(p)
                .using((success, message, error) -> {
                    if (!success) {
                        System.out.println("BARE FAILED " + message);
                        System.out.flush();
                    }
                })
                .using(new DebeziumEngine.ConnectorCallback() {
                    @Override
                    public void taskStarted() {
                        System.out.println(STREAMING);
                        System.out.flush();
                    }
                })
                .notifying(counter).build()) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    engine.close();
                }
                catch (Exception e) {
                    e.printStackTrace();
                }
            }));
            engine.run();
        }
    }
}
