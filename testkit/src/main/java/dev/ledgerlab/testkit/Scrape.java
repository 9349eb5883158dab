package dev.ledgerlab.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One scrape of a service's {@code /actuator/prometheus}, read as a test would read it: samples by name and labels.
 * Prometheus' Java client writes this format but has no reader for it, hence these few lines: a sample line is
 * {@code name{label="value",...} number}, and a label value escapes only backslash, quote and newline.
 */
public final class Scrape {

    public record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final List<Sample> samples;

    private Scrape(List<Sample> samples) {
        this.samples = samples;
    }

    /** Scrapes the service on this port, without credentials (the endpoint is open, like health). */
    public static Scrape of(int port) {
        var response = TestHttp.at(port).get("/actuator/prometheus");
        if (response.status() != 200) {
            throw new IllegalStateException("/actuator/prometheus answered " + response.status() + ": "
                    + response.body());
        }
        return parse(response.body());
    }

    public static Scrape parse(String text) {
        var samples = new ArrayList<Sample>();
        for (var line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = brace >= 0 ? line.indexOf(' ', line.lastIndexOf('}')) : line.indexOf(' ');
            var name = line.substring(0, brace >= 0 ? brace : space);
            var labels = new LinkedHashMap<String, String>();
            if (brace >= 0) {
                var matcher = LABEL.matcher(line.substring(brace + 1, line.lastIndexOf('}')));
                while (matcher.find()) {
                    labels.put(matcher.group(1), matcher.group(2));
                }
            }
            var value = line.substring(space + 1).trim().split(" ")[0];
            samples.add(new Sample(name, labels, Double.parseDouble(value)));
        }
        return new Scrape(samples);
    }

    /** Every sample of this name whose labels include these pairs ({@code "outcome", "applied", ...}). */
    public List<Sample> samples(String name, String... labelPairs) {
        return samples.stream().filter(s -> s.name().equals(name) && hasLabels(s, labelPairs)).toList();
    }

    /** The sum of the matching samples; 0 when there is none. */
    public double sum(String name, String... labelPairs) {
        return samples(name, labelPairs).stream().mapToDouble(Sample::value).sum();
    }

    /** The one matching sample's value; fails when there is none or more than one. */
    public double value(String name, String... labelPairs) {
        var matching = samples(name, labelPairs);
        if (matching.size() != 1) {
            throw new IllegalStateException(matching.size() + " samples of " + name + " with "
                    + String.join(",", labelPairs) + ": " + matching);
        }
        return matching.get(0).value();
    }

    public boolean has(String name, String... labelPairs) {
        return !samples(name, labelPairs).isEmpty();
    }

    private static boolean hasLabels(Sample sample, String... pairs) {
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            if (!pairs[i + 1].equals(sample.labels().get(pairs[i]))) {
                return false;
            }
        }
        return true;
    }
}
