package dev.tether.kit.kafka;

import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A serde that keeps, per thread, the last values it decoded and the bytes each came from: encoding one of those same
 * instances again answers its bytes without encoding. For a store kept equal to a topic ({@link TopicMaterializer}),
 * whose value is put right after the source decoded it on the same stream thread: without it every record is
 * Avro-encoded once more only to get back the bytes it arrived as (a fifth of the projector's stream-thread CPU,
 * bench/README.md "Where the time goes"). A restore from the topic writes those same bytes into the store, so the store
 * holds what it would hold after a restore.
 *
 * <p>Only {@link #sourceDeserializer()} — the source's — remembers what it decodes; the store's own {@link #deserializer()}
 * (its reads, on any thread) keeps nothing. Kafka Streams decodes the next record of each of a task's partitions before
 * it processes the current one, so the memo holds the last {@value #REMEMBERED} values a stream thread decoded, found by
 * identity; a value decoded longer ago is encoded as usual. Sound as long as a value is not changed after it was
 * decoded: Tether treats the Avro values it reads as immutable.
 */
public final class MemoSerde<T> implements Serde<T> {

    /** How many decoded values each thread remembers: more than the partitions a stream thread reads ahead on. */
    static final int REMEMBERED = 32;

    private final Serde<T> serde;
    private final ThreadLocal<Memo> memo = ThreadLocal.withInitial(Memo::new);
    private final Serializer<T> serializer = new Serializer<>() {
        @Override
        public byte[] serialize(String topic, T data) {
            byte[] known = known(data);
            return known != null ? known : serde.serializer().serialize(topic, data);
        }

        @Override
        public byte[] serialize(String topic, Headers headers, T data) {
            byte[] known = known(data);
            return known != null ? known : serde.serializer().serialize(topic, headers, data);
        }
    };
    private final Deserializer<T> sourceDeserializer = new Deserializer<>() {
        @Override
        public T deserialize(String topic, byte[] data) {
            return remembered(data, serde.deserializer().deserialize(topic, data));
        }

        @Override
        public T deserialize(String topic, Headers headers, byte[] data) {
            return remembered(data, serde.deserializer().deserialize(topic, headers, data));
        }
    };

    private MemoSerde(Serde<T> serde) {
        this.serde = serde;
    }

    /** {@code serde} with the memo; closing it closes {@code serde}. Give the source {@link #sourceDeserializer()}. */
    public static <T> MemoSerde<T> of(Serde<T> serde) {
        return new MemoSerde<>(serde);
    }

    @Override
    public Serializer<T> serializer() {
        return serializer;
    }

    /** The store's deserializer: the wrapped serde's, remembering nothing. */
    @Override
    public Deserializer<T> deserializer() {
        return serde.deserializer();
    }

    /** The deserializer of the topic the store is kept equal to: remembers the values it decodes on each thread. */
    public Deserializer<T> sourceDeserializer() {
        return sourceDeserializer;
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        serde.configure(configs, isKey);
    }

    @Override
    public void close() {
        serde.close();
    }

    private T remembered(byte[] data, T value) {
        if (value != null && data != null) {
            memo.get().add(value, data);
        }
        return value;
    }

    private byte[] known(T data) {
        return data == null ? null : memo.get().bytesOf(data);
    }

    /** The last {@value #REMEMBERED} values decoded and their bytes, in a ring. */
    private static final class Memo {
        private final Object[] values = new Object[REMEMBERED];
        private final byte[][] bytes = new byte[REMEMBERED][];
        private int next;

        void add(Object value, byte[] data) {
            values[next] = value;
            bytes[next] = data;
            next = (next + 1) % REMEMBERED;
        }

        byte[] bytesOf(Object value) {
            for (int i = 0; i < REMEMBERED; i++) {
                if (values[i] == value) {
                    return bytes[i];
                }
            }
            return null;
        }
    }
}
