package dev.tether.kit.kafka;

import java.util.List;

/** An existing topic does not have the configuration Tether needs; running on it could lose events. */
public class TopicMisconfiguredException extends RuntimeException {

    private final List<String> problems;

    public TopicMisconfiguredException(List<String> problems) {
        super("Kafka topics are misconfigured; refusing to run on them:\n  - " + String.join("\n  - ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
