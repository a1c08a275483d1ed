package dev.tether.bench;

/**
 * A soak's size from its command line ({@code [count [sessions [step]]]}): how many calls or events, over how many
 * sessions, sampled every {@code step}; by default 10,000 sessions and a tenth of the count per step.
 */
record SoakSize(int count, int sessions, int step) {

    static SoakSize parse(String[] args, int defaultCount) {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : defaultCount;
        int sessions = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int step = args.length > 2 ? Integer.parseInt(args[2]) : count / 10;
        return new SoakSize(count, sessions, step);
    }
}
