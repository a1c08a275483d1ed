package dev.tether.cli;

import dev.tether.core.id.ClientIds;
import dev.tether.cli.kafka.RecordSkip;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Option converters that check values while parsing, so an out-of-range value or a malformed id is a usage error naming the option. */
public final class Converters {

    private Converters() {}

    /** A seq: 1 or more. */
    public static final class Seq implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            long n = parse(value);
            if (n < 1) {
                throw new TypeConversionException("a seq starts at 1, not " + n);
            }
            return n;
        }
    }

    /** A count: 1 or more (partitions, tokens). */
    public static final class Positive implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return (int) inRange(value, 1, Integer.MAX_VALUE, "must be");
        }
    }

    /** A replication factor: 1 to {@link Short#MAX_VALUE}, what Kafka takes (a larger one would wrap around to another number). */
    public static final class ReplicationFactor implements ITypeConverter<Short> {
        @Override
        public Short convert(String value) {
            return (short) inRange(value, 1, Short.MAX_VALUE, "a replication factor is");
        }
    }

    /** A harness version's weight: 0 to 100. */
    public static final class Weight implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return (int) inRange(value, 0, 100, "a weight is");
        }
    }

    /** A session id, as the services accept it: checked here, so a mistyped one is a usage error, not a failed command. */
    public static final class SessionId implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return id(value, "a session id");
        }
    }

    /** An approval item's id, {@code <sessionId>~<seq>}: checked here, so {@code ..} or a stray {@code /} never reaches a URL. */
    public static final class ApprovalId implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            int tilde = value.lastIndexOf('~');
            if (tilde < 1 || !ClientIds.isValid(value.substring(0, tilde)) || !value.substring(tilde + 1).matches("[1-9][0-9]{0,18}")) {
                throw new TypeConversionException("an approval id is <sessionId>~<seq> (e.g. demo-1~9, as 'tether approvals list' "
                        + "shows it), not '" + value + "'");
            }
            return value;
        }
    }

    /** A harness version, as the session-service accepts it (the rule of a session id). */
    public static final class Version implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return id(value, "a harness version");
        }
    }

    /** A partition: 0 to {@link Integer#MAX_VALUE}, what Kafka numbers partitions with. */
    public static final class Partition implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return (int) inRange(value, 0, Integer.MAX_VALUE, "a partition is");
        }
    }

    /** An offset: 0 or more. */
    public static final class NonNegative implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            long n = parse(value);
            if (n < 0) {
                throw new TypeConversionException("must be 0 or more, not " + n);
            }
            return n;
        }
    }

    /** One of the services with a consumer group ({@link RecordSkip#SERVICES}). */
    public static final class Service implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (!RecordSkip.SERVICES.contains(value)) {
                throw new TypeConversionException("a service is one of " + String.join(", ", RecordSkip.SERVICES) + ", not '" + value + "'");
            }
            return value;
        }
    }

    /** One of Tether's topics, named without the prefix ({@code session-commands}). */
    public static final class Topic implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (!RecordSkip.isTopic(value)) {
                throw new TypeConversionException("a topic is one of Tether's, named without the prefix (e.g. session-commands), not '"
                        + value + "'");
            }
            return value;
        }
    }

    /** {@code value} if it is an id as the services take it (a session id's rule); else the usage error naming {@code what}. */
    private static String id(String value, String what) {
        if (!ClientIds.isValid(value)) {
            throw new TypeConversionException(what + " is 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit, not '"
                    + value + "'");
        }
        return value;
    }

    /** {@code value} as a whole number from {@code min} to {@code max}; else "{@code what} from min to max, not n". */
    private static long inRange(String value, long min, long max, String what) {
        long n = parse(value);
        if (n < min || n > max) {
            throw new TypeConversionException(what + " from " + min + " to " + max + ", not " + n);
        }
        return n;
    }

    private static long parse(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is not a whole number");
        }
    }
}
