package dev.ledgerlab.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.Plot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.StackedBarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The run's charts as PNG files, drawn by JFreeChart (headless): latency over its whole percentile range from
 * HdrHistogram data, and throughput against the number of clients. Each names the run it comes from.
 */
final class Charts {

    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b)};

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private Charts() {
    }

    /**
     * Latency against percentile, the percentile axis spread by its nines (50 %, 90 %, 99 %, 99.9 %, ...) as
     * HdrHistogram's own plots do, so the tail is as readable as the middle.
     */
    static void percentiles(Path file, String title, String stamp, Map<String, Histogram> histograms) {
        var data = new XYSeriesCollection();
        histograms.forEach((name, histogram) -> {
            var series = new XYSeries(name + " (" + histogram.getTotalCount() + ")");
            for (var value : histogram.percentiles(5)) {
                double percentile = value.getPercentileLevelIteratedTo();
                if (percentile >= 100) {
                    break;
                }
                series.add(-Math.log10(1 - percentile / 100), value.getValueIteratedTo() / 1000.0);
            }
            series.add(-Math.log10(1 - 0.99999), histogram.getMaxValue() / 1000.0);
            data.addSeries(series);
        });
        var x = new NumberAxis("percentile");
        x.setTickUnit(new NumberTickUnit(1, new NinesFormat()));
        x.setRange(0, 5);
        var y = new LogAxis("milliseconds");
        y.setSmallestValue(0.1);
        save(file, title, stamp, new XYPlot(data, x, y, renderer(histograms.size(), false)));
    }

    /** One line per series of (clients, commands per second). */
    static void throughput(Path file, String title, String stamp, Map<String, List<double[]>> lines) {
        var data = new XYSeriesCollection();
        lines.forEach((name, points) -> {
            var series = new XYSeries(name);
            points.forEach(point -> series.add(point[0], point[1]));
            data.addSeries(series);
        });
        var x = new LogAxis("clients (threads, keep-alive connections)");
        x.setBase(2);
        x.setSmallestValue(1);
        x.setNumberFormatOverride(NumberFormat.getIntegerInstance());
        // A fixed range, one tick per power of two: with one client count (--quick) the automatic range collapses.
        x.setRange(0.7, 96);
        x.setTickUnit(new org.jfree.chart.axis.NumberTickUnit(1));
        var y = new NumberAxis("commands per second");
        save(file, title, stamp, new XYPlot(data, x, y, renderer(lines.size(), true)));
    }

    /** Lines over time (seconds on x). */
    static void timeline(Path file, String title, String stamp, String yLabel, Map<String, List<double[]>> lines) {
        var data = new XYSeriesCollection();
        lines.forEach((name, points) -> {
            var series = new XYSeries(name);
            points.forEach(point -> series.add(point[0], point[1]));
            data.addSeries(series);
        });
        save(file, title, stamp, new XYPlot(data, new NumberAxis("seconds"), new NumberAxis(yLabel),
                renderer(lines.size(), false)));
    }

    /** Bars as lines between categories are misleading; a dot per (x, y) with its series' colour instead. */
    static void points(Path file, String title, String stamp, String xLabel, String yLabel,
            Map<String, List<double[]>> lines) {
        var data = new XYSeriesCollection();
        lines.forEach((name, points) -> {
            var series = new XYSeries(name);
            points.forEach(point -> series.add(point[0], point[1]));
            data.addSeries(series);
        });
        var y = new NumberAxis(yLabel);
        save(file, title, stamp, new XYPlot(data, new NumberAxis(xLabel), y, renderer(lines.size(), true)));
    }

    /**
     * One horizontal bar per lab (a commit), stacked by component: each component's share of what a deposit costs,
     * in the same colour on every bar.
     */
    static void stackedBars(Path file, String title, String stamp, Map<String, Map<String, Double>> bars) {
        var data = new DefaultCategoryDataset();
        bars.forEach((bar, parts) -> parts.forEach((part, value) -> data.addValue(value, part, bar)));
        var renderer = new StackedBarRenderer();
        int series = bars.values().stream().mapToInt(Map::size).max().orElse(0);
        var palette = new Color[] {new Color(0x1f77b4), new Color(0xaec7e8), new Color(0xff7f0e), new Color(0xffbb78),
            new Color(0x2ca02c), new Color(0x98df8a), new Color(0xd62728), new Color(0xff9896), new Color(0x9467bd),
            new Color(0xc5b0d5), new Color(0x8c564b), new Color(0xc49c94), new Color(0xe377c2), new Color(0x7f7f7f),
            new Color(0xbcbd22), new Color(0x17becf)};
        for (int i = 0; i < series; i++) {
            renderer.setSeriesPaint(i, palette[i % palette.length]);
        }
        renderer.setShadowVisible(false);
        renderer.setBarPainter(new StandardBarPainter());
        var plot = new CategoryPlot(data, new CategoryAxis("commit"), new NumberAxis("ms of CPU per deposit"),
                renderer);
        plot.setOrientation(PlotOrientation.HORIZONTAL);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        write(file, title, stamp, plot, 1100, 380 + 60 * bars.size());
    }

    private static XYLineAndShapeRenderer renderer(int series, boolean shapes) {
        var renderer = new XYLineAndShapeRenderer(true, shapes);
        for (int i = 0; i < series; i++) {
            renderer.setSeriesPaint(i, COLORS[i % COLORS.length]);
            renderer.setSeriesStroke(i, new BasicStroke(2f));
        }
        return renderer;
    }

    private static void save(Path file, String title, String stamp, XYPlot plot) {
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        write(file, title, stamp, plot, 900, 520);
    }

    private static void write(Path file, String title, String stamp, Plot plot, int width, int height) {
        var chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 16), plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        chart.addSubtitle(new TextTitle(stamp, new Font(Font.SANS_SERIF, Font.PLAIN, 11)));
        try {
            ChartUtils.saveChartAsPNG(file.toFile(), chart, width, height);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** 0 -> 0%, 1 -> 90%, 2 -> 99%, 3 -> 99.9%... */
    private static final class NinesFormat extends NumberFormat {

        private static final Map<Integer, String> LABELS = new LinkedHashMap<>(Map.of(0, "0%", 1, "90%", 2, "99%",
                3, "99.9%", 4, "99.99%", 5, "99.999%"));

        @Override
        public StringBuffer format(double number, StringBuffer toAppendTo, FieldPosition pos) {
            return toAppendTo.append(LABELS.getOrDefault((int) Math.round(number), ""));
        }

        @Override
        public StringBuffer format(long number, StringBuffer toAppendTo, FieldPosition pos) {
            return format((double) number, toAppendTo, pos);
        }

        @Override
        public Number parse(String source, ParsePosition parsePosition) {
            throw new UnsupportedOperationException("labels only");
        }
    }
}
