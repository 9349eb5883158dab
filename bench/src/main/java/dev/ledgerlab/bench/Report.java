package dev.ledgerlab.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.SerializationFeature;

/**
 * What a run measured: a JSON tree that other tools read by dotted path ({@code command.ratio64}), and Markdown
 * tables, each figure beside its baseline from the same run and the ratio of the two, with the targets beside them.
 */
final class Report {

    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private final ObjectNode root = JsonNodeFactory.instance.objectNode();
    private final List<String> markdown = new ArrayList<>();

    /** Sets {@code path} (dots between levels) to a number, a string, or a list of either. */
    Report put(String path, Object value) {
        var parts = path.split("\\.");
        var node = root;
        for (int i = 0; i < parts.length - 1; i++) {
            var child = node.get(parts[i]);
            node = child instanceof ObjectNode object ? object : node.putObject(parts[i]);
        }
        var name = parts[parts.length - 1];
        if (value instanceof Double number) {
            if (Double.isNaN(number)) {
                node.putNull(name);
            }
            else {
                node.put(name, round(number));
            }
        }
        else if (value instanceof Integer number) {
            node.put(name, number);
        }
        else if (value instanceof Long number) {
            node.put(name, number);
        }
        else if (value instanceof Boolean flag) {
            node.put(name, flag);
        }
        else if (value instanceof List<?> list) {
            var array = node.putArray(name);
            for (var item : list) {
                if (item instanceof Double number) {
                    array.add(round(number));
                }
                else {
                    array.add(String.valueOf(item));
                }
            }
        }
        else {
            node.put(name, String.valueOf(value));
        }
        return this;
    }

    /** A number with as many digits as a reader can use. */
    private static double round(double value) {
        double magnitude = Math.abs(value);
        double scale = magnitude >= 100 ? 1 : magnitude >= 1 ? 100 : 10_000;
        return Math.round(value * scale) / scale;
    }

    Report section(String title, String... lines) {
        markdown.add("");
        markdown.add("### " + title);
        markdown.add("");
        markdown.addAll(List.of(lines));
        return this;
    }

    Report line(String line) {
        markdown.add(line);
        return this;
    }

    boolean has(String path) {
        var node = root.at("/" + path.replace('.', '/'));
        return !node.isMissingNode() && !node.isNull();
    }

    String text(String path) {
        return root.at("/" + path.replace('.', '/')).asString();
    }

    /** A list's items, joined by " / ", numbers with two decimals. */
    String textList(String path) {
        var items = new ArrayList<String>();
        root.at("/" + path.replace('.', '/')).forEach(item -> items.add(item.isNumber()
                ? "%.2f".formatted(item.asDouble()) : item.asString()));
        return String.join(" / ", items);
    }

    double number(String path) {
        return root.at("/" + path.replace('.', '/')).asDouble();
    }

    void write(Path directory, String name, String header) {
        try {
            Files.createDirectories(directory);
            Files.writeString(directory.resolve(name + ".json"), JSON.writeValueAsString(root) + "\n",
                    StandardCharsets.UTF_8);
            Files.writeString(directory.resolve(name + ".md"),
                    header + "\n" + String.join("\n", markdown) + "\n", StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot write the results to " + directory, e);
        }
    }

    String markdown() {
        return String.join("\n", markdown);
    }
}
