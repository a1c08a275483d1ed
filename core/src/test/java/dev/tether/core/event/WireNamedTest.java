package dev.tether.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class WireNamedTest {

    enum Colour implements WireNamed {
        LIGHT_BLUE("light_blue"), RED("red");

        private final String wireName;

        Colour(String wireName) {
            this.wireName = wireName;
        }

        @Override
        public String wireName() {
            return wireName;
        }
    }

    @Test
    void findsTheConstant_byItsWireName_notByItsJavaName() {
        assertThat(WireNamed.byWireName(Colour.class, "light_blue")).isEqualTo(Colour.LIGHT_BLUE);
        assertThatThrownBy(() -> WireNamed.byWireName(Colour.class, "LIGHT_BLUE"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Colour has no constant named 'LIGHT_BLUE' on the wire");
    }
}
