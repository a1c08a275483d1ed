package dev.tether.kit.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.WireNamed;
import dev.tether.kit.kafka.StoreFormat;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class WireNamesTest {

    enum Waiting implements WireNamed { TOOL_RESULT, MODEL_TURN }

    record Holder(Waiting waiting, ToolStatus status) {}

    private static final String JSON = "{\"waiting\":\"tool_result\",\"status\":\"OK\"}";

    @Test
    void aWireNamedEnum_isWrittenAndReadByItsWireName_andAnyOtherEnumByItsName_inTheRestApi() throws Exception {
        var json = new EventJson().mapper();

        assertThat(json.writeValueAsString(new Holder(Waiting.TOOL_RESULT, ToolStatus.OK))).isEqualTo(JSON);
        assertThat(json.readValue(JSON, Holder.class)).isEqualTo(new Holder(Waiting.TOOL_RESULT, ToolStatus.OK));
        assertThat(json.readValue("{\"waiting\":null,\"status\":\"OK\"}", Holder.class)).isEqualTo(new Holder(null, ToolStatus.OK));
        assertThatThrownBy(() -> json.readValue("{\"waiting\":\"TOOL_RESULT\",\"status\":\"OK\"}", Holder.class))
                .isInstanceOf(InvalidFormatException.class).hasMessageContaining("not one of tool_result, model_turn");
        assertThatThrownBy(() -> json.readValue("{\"waiting\":1,\"status\":\"OK\"}", Holder.class))
                .isInstanceOf(com.fasterxml.jackson.databind.exc.MismatchedInputException.class);
    }

    @Test
    void aWireNamedEnum_isStoredAndReadByItsWireName() {
        StoreFormat<Holder> serde = StoreFormat.<Holder, Holder>of("t", Holder.class, h -> h, h -> h).build();

        byte[] stored = serde.serialize("t", new Holder(Waiting.MODEL_TURN, ToolStatus.UNKNOWN));

        assertThat(new String(stored, StandardCharsets.UTF_8)).isEqualTo("{\"version\":1,\"waiting\":\"model_turn\",\"status\":\"UNKNOWN\"}");
        assertThat(serde.deserialize("t", stored)).isEqualTo(new Holder(Waiting.MODEL_TURN, ToolStatus.UNKNOWN));
        assertThatThrownBy(() -> serde.deserialize("t", "{\"version\":1,\"waiting\":\"later\",\"status\":\"OK\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(SerializationException.class);
    }
}
