package dev.tether.kit.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.kit.kafka.RegistryUnavailableException;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler.Result;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

/**
 * A record that cannot be read stops the thread, unless the operator named exactly that record; never one that fails only
 * because the registry does not answer. A mistyped list stops the start.
 */
class NamedRecordSkipsTest {

    private static final Exception NOT_AVRO = new SerializationException("Unknown magic byte!");

    private static NamedRecordSkips handler(String list) {
        var handler = new NamedRecordSkips();
        handler.configure(Map.of(NamedRecordSkips.CONFIG, list));
        return handler;
    }

    private static Result at(NamedRecordSkips handler, String topic, int partition, long offset, Exception failure) {
        var record = new ConsumerRecord<>(topic, partition, offset, "k".getBytes(), "not Avro".getBytes());
        return handler.handleError(new Context(topic, partition, offset), record, failure).result();
    }

    @Test
    void aNamedRecord_isPassedOver_andNoOtherOne() {
        NamedRecordSkips handler = handler("staging.session-commands:3:41, staging.session-events:0:7");

        assertThat(at(handler, "staging.session-commands", 3, 41, NOT_AVRO)).isEqualTo(Result.RESUME);
        assertThat(at(handler, "staging.session-events", 0, 7, NOT_AVRO)).isEqualTo(Result.RESUME);
        assertThat(at(handler, "staging.session-commands", 3, 42, NOT_AVRO)).isEqualTo(Result.FAIL);
        assertThat(at(handler, "staging.session-commands", 2, 41, NOT_AVRO)).isEqualTo(Result.FAIL);
        assertThat(at(handler, "session-commands", 3, 41, NOT_AVRO)).as("the full name, prefix and all").isEqualTo(Result.FAIL);
    }

    @Test
    void aNamedRecord_thatFailsOnlyBecauseTheRegistryIsAway_isNotPassedOver() {
        var away = new SerializationException(new RegistryUnavailableException("http://127.0.0.1:1", "is not reachable", null));

        assertThat(at(handler("t:0:5"), "t", 0, 5, away)).isEqualTo(Result.FAIL);
    }

    @Test
    void noList_orNone_passesNothingOver() {
        assertThat(at(handler(NamedRecordSkips.NONE), "t", 0, 5, NOT_AVRO)).isEqualTo(Result.FAIL);
        assertThat(at(handler(" "), "t", 0, 5, NOT_AVRO)).isEqualTo(Result.FAIL);
        var unconfigured = new NamedRecordSkips();
        unconfigured.configure(Map.of());
        assertThat(at(unconfigured, "t", 0, 5, NOT_AVRO)).isEqualTo(Result.FAIL);
    }

    @Test
    void aMistypedList_stopsTheStart_namingTheEntry() {
        for (String bad : new String[] {"t:0", "t:x:5", "t:0:-1", ":0:5", "t:0:5:6", "t:0:5,,u:1:2"}) {
            assertThatThrownBy(() -> handler(bad)).as(bad).isInstanceOf(ConfigException.class).hasMessageContaining(NamedRecordSkips.CONFIG);
        }
    }

    private record Context(String topic, int partition, long offset) implements ErrorHandlerContext {
        @Override
        public Headers headers() {
            return new RecordHeaders();
        }

        @Override
        public String processorNodeId() {
            return "source";
        }

        @Override
        public TaskId taskId() {
            return new TaskId(0, partition);
        }

        @Override
        public long timestamp() {
            return 0;
        }

        @Override
        public byte[] sourceRawKey() {
            return null;
        }

        @Override
        public byte[] sourceRawValue() {
            return null;
        }
    }
}
