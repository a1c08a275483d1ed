package dev.tether.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Repeated measurements of one quantity: the values in run order, their median and range. Immutable.
 *
 * @param values the measurements, in the order they were taken
 */
public record Samples(List<Double> values) {

    public Samples {
        values = List.copyOf(values);
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no samples");
        }
    }

    public static Samples of(List<Double> values) {
        return new Samples(values);
    }

    public double median() {
        return quantile(sorted(), 0.5);
    }

    public double min() {
        return sorted()[0];
    }

    public double max() {
        double[] s = sorted();
        return s[s.length - 1];
    }

    /** The median of {@code this[i] / ceiling[i]}: each repetition against the ceiling measured next to it. */
    public Samples ratioTo(Samples ceiling) {
        var ratios = new ArrayList<Double>();
        for (int i = 0; i < values.size(); i++) {
            ratios.add(values.get(i) / ceiling.values().get(Math.min(i, ceiling.values().size() - 1)));
        }
        return new Samples(ratios);
    }

    private double[] sorted() {
        double[] s = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(s);
        return s;
    }

    /** The q-quantile of sorted values, by linear interpolation between closest ranks. */
    static double quantile(double[] sorted, double q) {
        if (sorted.length == 1) {
            return sorted[0];
        }
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
    }
}
