package dev.tether.kit.service;

import dev.tether.kit.kafka.RegistryUnavailableException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.LogAndFailExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services' deserialization handler: a record that cannot be read stops its stream thread ({@link
 * LogAndFailExceptionHandler}, whose log line names its topic, partition and offset), unless an operator named exactly
 * that record in {@value #CONFIG} ({@code TETHER_SKIP_RECORDS}: {@code <topic>:<partition>:<offset>}, comma-separated,
 * the topic's full name). A named record is passed over, logged, and the thread goes on: the way past a record no
 * service can read (bytes that are not Avro, a schema id the registry does not have), which would otherwise stop the
 * service at every start, with the records around it kept. Only records that fail to deserialize come here, so a
 * named record that reads is processed as any other; one that fails only because the registry does not answer is never
 * skipped ({@link StreamThreadRecovery} waits for the registry). cli/README.md, "A record a service cannot read".
 */
public class NamedRecordSkips extends LogAndFailExceptionHandler {

    /** The Kafka Streams config (passed on by {@code kafka-streams.tether.skip-records}) naming the records to pass over. */
    public static final String CONFIG = "tether.skip-records";

    /** The value that names no record. */
    public static final String NONE = "none";

    // SLF4J, as Kafka Streams' own handlers log: it is there wherever Kafka Streams runs (the bench runs the topologies
    // without Quarkus, where jboss-logging is not)
    private static final Logger LOG = LoggerFactory.getLogger(NamedRecordSkips.class);

    /** A record's place. */
    record Place(String topic, int partition, long offset) {
        @Override
        public String toString() {
            return topic + ":" + partition + ":" + offset;
        }
    }

    private Set<Place> named = Set.of();

    @Override
    public void configure(Map<String, ?> configs) {
        super.configure(configs);
        Object value = configs.get(CONFIG);
        named = parse(value == null ? NONE : value.toString());
        if (!named.isEmpty()) {
            LOG.warn("a record that cannot be read is passed over at {} only ({}); remove it from there once the service is past it",
                    named, CONFIG);
        }
    }

    /**
     * The places {@code list} names: {@code <topic>:<partition>:<offset>}, comma-separated, or {@value #NONE}.
     *
     * @throws ConfigException naming the entry that is not one, so that a mistyped list stops the start
     */
    static Set<Place> parse(String list) {
        var places = new HashSet<Place>();
        if (list.isBlank() || list.strip().equals(NONE)) {
            return Set.of();
        }
        for (String entry : list.split(",")) {
            String[] parts = entry.strip().split(":");
            try {
                if (parts.length != 3 || parts[0].isEmpty()) {
                    throw new NumberFormatException();
                }
                int partition = Integer.parseInt(parts[1]);
                long offset = Long.parseLong(parts[2]);
                if (partition < 0 || offset < 0) {
                    throw new NumberFormatException();
                }
                places.add(new Place(parts[0], partition, offset));
            } catch (NumberFormatException e) {
                throw new ConfigException(CONFIG, entry, "each record is <topic>:<partition>:<offset> (the topic's full name, as the "
                        + "log line of the failed record names it), comma-separated, or '" + NONE + "'");
            }
        }
        return Set.copyOf(places);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
        var place = new Place(record.topic(), record.partition(), record.offset());
        if (named.contains(place) && RegistryUnavailableException.in(exception).isEmpty()) {
            LOG.warn("passed over the record at {}, which cannot be read ({}), as {} names it", place, exception.toString(), CONFIG);
            return Response.resume();
        }
        return super.handleError(context, record, exception);
    }
}
