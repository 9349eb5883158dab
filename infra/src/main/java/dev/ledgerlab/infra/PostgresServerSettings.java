package dev.ledgerlab.infra;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The PostgreSQL server settings the pipeline needs (logical WAL for Debezium, slots, senders), owned by the {@code db}
 * module as the classpath resource {@value #RESOURCE} and shared by the embedded server and the containers.
 */
public final class PostgresServerSettings {

    public static final String RESOURCE = "db/postgresql.properties";

    private PostgresServerSettings() {
    }

    /**
     * The settings from {@value #RESOURCE}; the {@code db} module that owns them is a dependency of this one.
     */
    public static Map<String, String> fromClasspath() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = PostgresServerSettings.class.getClassLoader();
        }
        try (InputStream in = loader.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the classpath: the db module must be");
            }
            Properties properties = new Properties();
            properties.load(in);
            Map<String, String> settings = new TreeMap<>();
            properties.stringPropertyNames().forEach(name -> settings.put(name.trim(), properties.getProperty(name).trim()));
            return Collections.unmodifiableMap(settings);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    /**
     * The settings as {@code -c name=value} arguments for a {@code postgres} command line, e.g. a container's.
     */
    public static String[] asCommandLine(Map<String, String> settings) {
        String[] arguments = new String[settings.size() * 2];
        int i = 0;
        for (Map.Entry<String, String> setting : settings.entrySet()) {
            arguments[i++] = "-c";
            arguments[i++] = setting.getKey() + "=" + setting.getValue();
        }
        return arguments;
    }
}
