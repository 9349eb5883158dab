package dev.ledgerlab.lab;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import jakarta.servlet.Filter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.MDC;

/**
 * Which of the lab's services wrote a log line: {@code %service} in logback.xml. Spring Boot puts one application
 * name into every line of the JVM (the first application's), so in the lab every line said {@code command-api}.
 * Logback has no notion of an application context, so the service is found the way a reader would find it: the MDC
 * key {@value #MDC_KEY} (set while a service starts and for each HTTP request it serves), else the logger's package
 * (the project's own classes, and Debezium's, which only the relay runs), else the thread's name (the threads each service's libraries start: Kafka listener
 * containers, Debezium, connection pools, named after the service); anything else is the lab itself (PostgreSQL,
 * the Kafka broker).
 */
public final class ServiceNames extends ClassicConverter {

    static final String MDC_KEY = "service";
    private static final String LAB = "lab";
    private static final Map<String, String> PACKAGES = Map.of(
            "dev.ledgerlab.commandapi", "command-api",
            "dev.ledgerlab.relay", "outbox-relay",
            "dev.ledgerlab.projector", "projector",
            // Only the relay runs Debezium (and so Kafka Connect), whose tasks log from unnamed thread pools.
            "io.debezium", "outbox-relay",
            "org.apache.kafka.connect", "outbox-relay");
    /** Thread-name fragments, registered by each service as it starts. */
    private static final Map<String, String> THREADS = new ConcurrentHashMap<>();
    /** The service whose process this is, when it runs in one of its own ({@link ServiceMain}). */
    private static volatile String wholeProcess;

    /** Every line of this process is {@code service}'s: it runs alone in it. */
    static void wholeProcess(String service) {
        wholeProcess = service;
    }

    /** Lines on threads whose name contains any of these fragments belong to {@code service}. */
    static void threads(String service, String... fragments) {
        for (var fragment : fragments) {
            THREADS.put(fragment, service);
        }
    }

    /** Names the service in the lines its HTTP requests log. */
    static Filter requestFilter(String service) {
        return (request, response, chain) -> {
            MDC.put(MDC_KEY, service);
            try {
                chain.doFilter(request, response);
            } finally {
                MDC.remove(MDC_KEY);
            }
        };
    }

    @Override
    public String convert(ILoggingEvent event) {
        return of(event.getMDCPropertyMap().get(MDC_KEY), event.getLoggerName(), event.getThreadName());
    }

    static String of(String mdc, String logger, String thread) {
        if (wholeProcess != null) {
            return wholeProcess;
        }
        if (mdc != null) {
            return mdc;
        }
        for (var entry : PACKAGES.entrySet()) {
            if (logger.startsWith(entry.getKey())) {
                return entry.getValue();
            }
        }
        for (var entry : THREADS.entrySet()) {
            if (thread.contains(entry.getKey())) {
                return entry.getValue();
            }
        }
        return LAB;
    }
}
