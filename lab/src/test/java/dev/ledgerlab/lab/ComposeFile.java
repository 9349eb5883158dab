package dev.ledgerlab.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * docker-compose.yml as Compose reads it: YAML merge keys resolved, {@code ${NAME:-default}} interpolated to its
 * default (the file must work without a .env), both the map and the list forms of environment and depends_on.
 */
final class ComposeFile {

    private static final Pattern VARIABLE = Pattern.compile("\\$(\\$|\\{([A-Za-z_][A-Za-z0-9_]*)(:?-)([^}]*)}|.?)");

    private final Map<String, Object> root;

    private ComposeFile(Map<String, Object> root) {
        this.root = root;
    }

    static ComposeFile load(Path file) {
        try {
            var options = new LoaderOptions();
            options.setAllowDuplicateKeys(false);
            Map<String, Object> root = new Yaml(options).load(Files.readString(file));
            return new ComposeFile(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A Compose string with every variable replaced by its default, as {@code docker compose} does without a .env. */
    static String interpolate(String value) {
        Matcher m = VARIABLE.matcher(value);
        var out = new StringBuilder();
        while (m.find()) {
            String replacement;
            if ("$".equals(m.group(1))) {
                replacement = "$";
            } else if (m.group(2) != null) {
                replacement = m.group(4);
            } else {
                throw new IllegalArgumentException("'" + value + "' needs a variable without a default (or has a bare $;"
                        + " write $$ for a literal one): Compose would fail or substitute an empty string");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    Set<String> serviceNames() {
        return services().keySet();
    }

    Map<String, Object> service(String name) {
        var service = services().get(name);
        if (service == null) {
            throw new IllegalArgumentException("no service " + name + " in " + serviceNames());
        }
        return map(service);
    }

    String image(String service) {
        return string(service(service).get("image"));
    }

    Map<String, String> environment(String service) {
        var result = new LinkedHashMap<String, String>();
        Object environment = service(service).get("environment");
        if (environment instanceof Map<?, ?> entries) {
            entries.forEach((key, value) -> result.put(key.toString(), value == null ? "" : string(value)));
        } else if (environment instanceof List<?> entries) {
            for (Object entry : entries) {
                var text = entry.toString();
                int eq = text.indexOf('=');
                result.put(eq < 0 ? text : text.substring(0, eq), eq < 0 ? "" : interpolate(text.substring(eq + 1)));
            }
        }
        return result;
    }

    List<String> command(String service) {
        return strings(service(service).get("command"));
    }

    List<String> entrypoint(String service) {
        return strings(service(service).get("entrypoint"));
    }

    /** Target service to condition; the list form means {@code service_started}. */
    Map<String, String> dependsOn(String service) {
        var result = new LinkedHashMap<String, String>();
        Object dependsOn = service(service).get("depends_on");
        if (dependsOn instanceof List<?> names) {
            names.forEach(name -> result.put(name.toString(), "service_started"));
        } else if (dependsOn instanceof Map<?, ?> entries) {
            entries.forEach((name, spec) -> result.put(name.toString(),
                    spec instanceof Map<?, ?> m && m.get("condition") != null ? m.get("condition").toString()
                            : "service_started"));
        }
        return result;
    }

    /** The health check's command without its CMD / CMD-SHELL marker; empty when there is none. */
    List<String> healthcheck(String service) {
        Object healthcheck = service(service).get("healthcheck");
        if (!(healthcheck instanceof Map<?, ?> spec) || Boolean.TRUE.equals(spec.get("disable"))) {
            return List.of();
        }
        var test = strings(spec.get("test"));
        if (test.isEmpty() || "NONE".equals(test.get(0))) {
            return List.of();
        }
        return test.get(0).startsWith("CMD") ? test.subList(1, test.size()) : test;
    }

    List<String> ports(String service) {
        return strings(service(service).get("ports"));
    }

    /** Container paths of the service's volume mounts. */
    List<String> volumeTargets(String service) {
        return strings(service(service).get("volumes")).stream().map(volume -> volume.split(":")[1]).toList();
    }

    String restart(String service) {
        return string(service(service).getOrDefault("restart", "no"));
    }

    private Map<String, Object> services() {
        return map(root.get("services"));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return value == null ? Map.of() : (Map<String, Object>) value;
    }

    private static String string(Object value) {
        return interpolate(String.valueOf(value));
    }

    private static List<String> strings(Object value) {
        if (value == null) {
            return List.of();
        }
        if (value instanceof List<?> list) {
            var result = new ArrayList<String>();
            list.forEach(item -> result.add(string(item)));
            return result;
        }
        return List.of(string(value));
    }
}
