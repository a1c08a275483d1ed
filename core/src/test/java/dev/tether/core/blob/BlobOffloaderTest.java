package dev.tether.core.blob;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.tether.core.blob.BlobOffloader.Offloaded;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlobOffloaderTest {

    private static final String GRINNING = "\uD83D\uDE00"; // U+1F600, a surrogate pair

    @TempDir
    Path root;

    private LocalBlobStore store;

    @BeforeEach
    void createStore() {
        store = new LocalBlobStore(root);
    }

    @Test
    void keepsTextBelowTheThresholdInline() {
        Offloaded result = new BlobOffloader(store, 1024, 100).offload("acme", "small");

        assertThat(result).isEqualTo(new Offloaded("small", null));
        assertThat(result.offloaded()).isFalse();
        assertThat(root).isEmptyDirectory();
    }

    @Test
    void keepsTextOfExactlyTheThresholdInline() {
        String text = "x".repeat(1024);

        Offloaded result = new BlobOffloader(store, 1024, 100).offload("acme", text);

        assertThat(result.offloaded()).isFalse();
        assertThat(result.text()).isSameAs(text);
        assertThat(root).isEmptyDirectory();
    }

    @Test
    void offloadsTextOneByteOverTheThreshold_leavingItsPreview() throws IOException {
        String text = "abc".repeat(341) + "xy"; // 1025 bytes

        Offloaded result = new BlobOffloader(store, 1024, 100).offload("acme", text);

        assertThat(result.offloaded()).isTrue();
        assertThat(result.text()).isEqualTo(text.substring(0, 100));
        assertThat(result.ref()).isEqualTo(BlobRef.of(sha256(text), 1025, text.substring(0, 100)));
        assertThat(read("acme", result.ref())).isEqualTo(text);
    }

    @Test
    void measuresTheThresholdInUtf8Bytes_notChars() throws IOException {
        var offloader = new BlobOffloader(store, 1024, 512);
        String fits = "€".repeat(341); // 341 chars, 1023 bytes
        String tooLarge = "€".repeat(342); // 342 chars, 1026 bytes

        assertThat(offloader.offload("acme", fits).offloaded()).isFalse();

        Offloaded result = offloader.offload("acme", tooLarge);
        assertThat(result.offloaded()).isTrue();
        assertThat(result.ref().size()).isEqualTo(1026);
        assertThat(result.text()).isEqualTo(tooLarge); // fewer chars than the preview length
        assertThat(read("acme", result.ref())).isEqualTo(tooLarge);
    }

    @Test
    void neverSplitsASurrogatePairInThePreview() {
        var offloader = new BlobOffloader(store, 1024, 10);
        String filler = "z".repeat(2000);

        String pairAcrossTheCut = "abcdefghi" + GRINNING + filler; // the pair is chars 9 and 10
        assertThat(offloader.offload("acme", pairAcrossTheCut).text()).isEqualTo("abcdefghi");

        String pairBeforeTheCut = "abcdefgh" + GRINNING + filler; // the pair is chars 8 and 9
        assertThat(offloader.offload("acme", pairBeforeTheCut).text()).isEqualTo("abcdefgh" + GRINNING);

        String onlyPairs = GRINNING.repeat(600);
        assertThat(offloader.offload("acme", onlyPairs).text()).isEqualTo(GRINNING.repeat(5));
        assertThat(new BlobOffloader(store, 1024, 1).offload("acme", onlyPairs).text()).isEmpty();
    }

    @Test
    void offloadingTheSameTextTwice_givesTheSameRef() {
        var offloader = new BlobOffloader(store, 1024, 10);
        String text = "y".repeat(5000);

        assertThat(offloader.offload("acme", text)).isEqualTo(offloader.offload("acme", text));
    }

    @Test
    void storesTheBlobForTheGivenTenantOnly() {
        BlobRef ref = new BlobOffloader(store, 1024, 10).offload("acme", "y".repeat(5000)).ref();

        assertThat(store.open("acme", ref.sha256())).isPresent();
        assertThat(store.open("other", ref.sha256())).isEmpty();
    }

    @Test
    void defaultsTo64KiBAnd512Chars() {
        var offloader = new BlobOffloader(store);
        String limit = "q".repeat(64 * 1024);

        assertThat(offloader.offload("acme", limit).offloaded()).isFalse();

        Offloaded result = offloader.offload("acme", limit + "q");
        assertThat(result.offloaded()).isTrue();
        assertThat(result.text()).hasSize(512);
    }

    @Test
    void rejectsInvalidSettings() {
        assertThatIllegalArgumentException().isThrownBy(() -> new BlobOffloader(store, 1023, 10));
        assertThatIllegalArgumentException().isThrownBy(() -> new BlobOffloader(store, 2048, 2049));
        assertThatIllegalArgumentException().isThrownBy(() -> new BlobOffloader(store, 2048, -1));
        assertThatNullPointerException().isThrownBy(() -> new BlobOffloader(null, 2048, 10));

        assertThat(new BlobOffloader(store, 1024, 1024)).isNotNull();
        assertThat(new BlobOffloader(store, 1024, 0).offload("acme", "y".repeat(2000)).text()).isEmpty();
    }

    @Test
    void rejectsNullArguments() {
        var offloader = new BlobOffloader(store);

        assertThatNullPointerException().isThrownBy(() -> offloader.offload("acme", null));
        assertThatNullPointerException().isThrownBy(() -> offloader.offload(null, "text"));
        assertThatNullPointerException().isThrownBy(() -> new Offloaded(null, null));
    }

    private String read(String tenantId, BlobRef ref) throws IOException {
        try (InputStream in = store.open(tenantId, ref.sha256()).orElseThrow()) {
            return new String(in.readAllBytes(), UTF_8);
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
