package dev.tether.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class WireNamedTest {

    enum Colour implements WireNamed {
        LIGHT_BLUE,
        /** Renamed from CRIMSON after its release: the wire keeps the old name. */
        RED {
            @Override
            public String wireName() {
                return "crimson";
            }
        }
    }

    @Test
    void aConstantsWireName_isItsNameInLowerCase_unlessItKeepsAnOlderOne() {
        assertThat(Colour.LIGHT_BLUE.wireName()).isEqualTo("light_blue");
        assertThat(Colour.RED.wireName()).isEqualTo("crimson");
    }

    @Test
    void findsTheConstant_byItsWireName_notByItsJavaName() {
        assertThat(WireNamed.byWireName(Colour.class, "light_blue")).isEqualTo(Colour.LIGHT_BLUE);
        assertThat(WireNamed.byWireName(Colour.class, "crimson")).isEqualTo(Colour.RED);
        assertThatThrownBy(() -> WireNamed.byWireName(Colour.class, "LIGHT_BLUE"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Colour has no constant named 'LIGHT_BLUE' on the wire");
    }
}
