package dev.ledgerlab.bench;

import java.util.List;

/** The middle of repeated measurements, and how far they spread. */
final class Stats {

    private Stats() {
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        var sorted = values.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }

    static double min(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    /** "1,234 (1,200-1,250)": the median and the range of the repetitions. */
    static String spread(List<Double> values) {
        return "%,.0f (%,.0f-%,.0f)".formatted(median(values), min(values), max(values));
    }
}
