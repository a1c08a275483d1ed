package dev.tether.core.blob;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LocalBlobStoreTest {

    /** SHA-256 of "hello". */
    private static final String HELLO_SHA256 = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

    @TempDir
    Path root;

    private LocalBlobStore store() {
        return new LocalBlobStore(root);
    }

    @Test
    void storesContent_underTheTenantsDirectory_andReadsItBack() throws IOException {
        BlobRef ref = store().put("acme", bytes("hello"));

        assertThat(ref).isEqualTo(new BlobRef("blob://sha256/" + HELLO_SHA256, HELLO_SHA256, 5, ""));
        assertThat(read(store(), "acme", HELLO_SHA256)).isEqualTo(bytes("hello"));
        assertThat(root.resolve("61636d65").resolve("2c").resolve(HELLO_SHA256)).hasBinaryContent(bytes("hello"));
    }

    @Test
    void storesEmptyContent() throws IOException {
        BlobRef ref = store().put("acme", new byte[0]);

        assertThat(ref.sha256()).isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assertThat(ref.size()).isZero();
        assertThat(read(store(), "acme", ref.sha256())).isEmpty();
    }

    @Test
    void createsItsRoot() {
        Path nested = root.resolve("a").resolve("b");

        new LocalBlobStore(nested).put("acme", bytes("hello"));

        assertThat(nested).isDirectory();
    }

    @Test
    void putIsIdempotent_theSecondPutWritesNothing_butCountsAsAPut() throws IOException {
        LocalBlobStore store = store();
        BlobRef first = store.put("acme", bytes("hello"));
        Path blob = onlyFile();
        Object file = Files.readAttributes(blob, BasicFileAttributes.class).fileKey();
        FileTime past = FileTime.fromMillis(1_000_000_000_000L);
        Files.setLastModifiedTime(blob, past);
        Instant beforeTheSecondPut = Instant.now().minusSeconds(1);

        BlobRef second = store.put("acme", bytes("hello"));

        assertThat(second).isEqualTo(first);
        assertThat(onlyFile()).isEqualTo(blob);
        assertThat(Files.readAttributes(blob, BasicFileAttributes.class).fileKey()).as("the same file, not written again").isEqualTo(file);
        assertThat(Files.getLastModifiedTime(blob).toInstant()).isAfter(beforeTheSecondPut);
    }

    @Test
    void deleteUnlessPutSince_deletesABlobLastPutBefore_andKeepsOnePutSince() throws IOException {
        LocalBlobStore store = store();
        BlobRef old = store.put("acme", bytes("old"));
        BlobRef recent = store.put("acme", bytes("recent"));
        Instant cut = Instant.now().minusSeconds(60);
        Files.setLastModifiedTime(blobFile("acme", old.sha256()), FileTime.from(cut.minusSeconds(1)));

        assertThat(store.deleteUnlessPutSince("acme", old.sha256(), cut)).isEqualTo(BlobStore.Removal.DELETED);
        assertThat(store.deleteUnlessPutSince("acme", recent.sha256(), cut)).isEqualTo(BlobStore.Removal.PUT_SINCE);

        assertThat(store.open("acme", old.sha256())).isEmpty();
        assertThat(read(store, "acme", recent.sha256())).isEqualTo(bytes("recent"));
        assertThat(store.deleteUnlessPutSince("acme", old.sha256(), cut)).isEqualTo(BlobStore.Removal.ABSENT);
        assertThat(files()).as("nothing left aside").containsExactly(blobFile("acme", recent.sha256()));
    }

    @Test
    void aBlobPutAgain_isNotDeletedAsOneLastPutBeforeTheCut() throws IOException {
        LocalBlobStore store = store();
        BlobRef ref = store.put("acme", bytes("offloaded again for another session"));
        Instant cut = Instant.now().minusSeconds(60);
        Files.setLastModifiedTime(blobFile("acme", ref.sha256()), FileTime.from(cut.minusSeconds(3600)));

        store.put("acme", bytes("offloaded again for another session"));

        assertThat(store.deleteUnlessPutSince("acme", ref.sha256(), cut)).isEqualTo(BlobStore.Removal.PUT_SINCE);
        assertThat(read(store, "acme", ref.sha256())).isEqualTo(bytes("offloaded again for another session"));
    }

    @Test
    void deleteUnlessPutSince_neverReachesAnotherTenantsBlob() throws IOException {
        LocalBlobStore store = store();
        BlobRef ref = store.put("tenant-a", bytes("hello"));
        Files.setLastModifiedTime(blobFile("tenant-a", ref.sha256()), FileTime.fromMillis(1_000_000_000_000L));

        assertThat(store.deleteUnlessPutSince("tenant-b", ref.sha256(), Instant.now())).isEqualTo(BlobStore.Removal.ABSENT);
        assertThat(store.deleteUnlessPutSince("tenant-b", "../../" + ref.sha256(), Instant.now())).isEqualTo(BlobStore.Removal.ABSENT);
        assertThat(read(store, "tenant-a", ref.sha256())).isEqualTo(bytes("hello"));
    }

    @Test
    void putsRacingADeletion_eachLeaveTheBlobReadable() throws Exception {
        LocalBlobStore store = store();
        byte[] content = bytes("content a session offloads while the blob is swept");
        for (int round = 0; round < 200; round++) {
            BlobRef ref = store.put("acme", content);
            Files.setLastModifiedTime(blobFile("acme", ref.sha256()), FileTime.fromMillis(1_000_000_000_000L));
            Instant cut = Instant.now().minusSeconds(60);
            var start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<BlobRef> put = pool.submit(() -> {
                    start.await();
                    return store.put("acme", content);
                });
                Future<BlobStore.Removal> removal = pool.submit(() -> {
                    start.await();
                    return store.deleteUnlessPutSince("acme", ref.sha256(), cut);
                });
                start.countDown();
                put.get(10, TimeUnit.SECONDS);
                removal.get(10, TimeUnit.SECONDS);
            } finally {
                pool.shutdownNow();
            }
            // the put returned a ref, so its blob must be there, whichever came first
            assertThat(read(store, "acme", ref.sha256())).as("round " + round).isEqualTo(content);
        }
        assertThat(files()).hasSize(1);
    }

    @Test
    void tenantsCannotSeeOrDeleteEachOthersBlobs_norLearnThatTheyExist() throws IOException {
        LocalBlobStore store = store();
        BlobRef ref = store.put("tenant-a", bytes("hello"));
        String neverStored = "0".repeat(64);

        assertThat(store.open("tenant-b", ref.sha256())).isEmpty();
        assertThat(store.delete("tenant-b", ref.sha256())).isFalse();
        // exactly what tenant-b gets for a blob nobody stored
        assertThat(store.open("tenant-b", neverStored)).isEmpty();
        assertThat(store.delete("tenant-b", neverStored)).isFalse();

        assertThat(read(store, "tenant-a", ref.sha256())).isEqualTo(bytes("hello"));
    }

    @Test
    void tenantsStoringTheSameContent_eachHaveTheirOwnCopy() throws IOException {
        LocalBlobStore store = store();
        BlobRef a = store.put("tenant-a", bytes("hello"));
        BlobRef b = store.put("tenant-b", bytes("hello"));

        assertThat(b).isEqualTo(a);
        assertThat(files()).hasSize(2);

        assertThat(store.delete("tenant-b", b.sha256())).isTrue();
        assertThat(read(store, "tenant-a", a.sha256())).isEqualTo(bytes("hello"));
        assertThat(store.open("tenant-b", b.sha256())).isEmpty();
    }

    @Test
    void deletes() {
        LocalBlobStore store = store();
        BlobRef ref = store.put("acme", bytes("hello"));

        assertThat(store.delete("acme", ref.sha256())).isTrue();
        assertThat(store.delete("acme", ref.sha256())).isFalse();
        assertThat(store.open("acme", ref.sha256())).isEmpty();
        assertThat(files()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", "2cf24dba", "../../etc/passwd", "../../../outside/secret",
        "2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824",
        "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b982",
        "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b98240",
        "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b982/",
        "../../../../../../../../../../../../../../../../../../../../etc/x",
    })
    void malformedSha256_isNeverFound_andTouchesNothing(String sha256) throws IOException {
        Path outside = Files.createDirectories(root.resolve("outside"));
        Files.writeString(outside.resolve("secret"), "secret");
        LocalBlobStore store = new LocalBlobStore(root.resolve("store"));
        store.put("acme", bytes("hello"));

        assertThat(store.open("acme", sha256)).isEmpty();
        assertThat(store.delete("acme", sha256)).isFalse();

        assertThat(outside.resolve("secret")).hasContent("secret");
        assertThat(files()).hasSize(2); // the secret and the one blob: nothing created or removed
        assertThat(read(store, "acme", HELLO_SHA256)).isEqualTo(bytes("hello"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"../x", "a/b", "..", ".", "/etc", "a\\b", "C:", "~", "a b", "CON", "租户", "\uD83D\uDE00"})
    void anyTenantId_getsOneHexNamedDirectoryDirectlyUnderTheRoot(String tenantId) throws IOException {
        LocalBlobStore store = store();

        store.put(tenantId, bytes("hello"));

        Path tenantDir = root.resolve(HexFormat.of().formatHex(tenantId.getBytes(UTF_8)));
        try (Stream<Path> children = Files.list(root)) {
            assertThat(children).containsExactly(tenantDir);
        }
        assertThat(files()).containsExactly(tenantDir.resolve("2c").resolve(HELLO_SHA256));
        assertThat(read(store, tenantId, HELLO_SHA256)).isEqualTo(bytes("hello"));
        assertThat(store.open("x", HELLO_SHA256)).isEmpty();
        assertThat(store.open("a", HELLO_SHA256)).isEmpty();
    }

    @Test
    void rejectsTenantIdsItCannotNameADirectoryFor() {
        LocalBlobStore store = store();
        String longest = "t".repeat(LocalBlobStore.MAX_TENANT_ID_BYTES);
        store.put(longest, bytes("hello"));

        for (String bad : List.of("", "t".repeat(LocalBlobStore.MAX_TENANT_ID_BYTES + 1), "a\uD800", "\uDC00b")) {
            assertThatIllegalArgumentException().isThrownBy(() -> store.put(bad, bytes("hello")));
            assertThatIllegalArgumentException().isThrownBy(() -> store.open(bad, HELLO_SHA256));
            assertThatIllegalArgumentException().isThrownBy(() -> store.delete(bad, HELLO_SHA256));
        }
        assertThatNullPointerException().isThrownBy(() -> store.put(null, bytes("hello")));
        assertThatNullPointerException().isThrownBy(() -> store.open("acme", null));
        assertThat(files()).hasSize(1);
    }

    @Test
    void leavesNoTemporaryFilesBehind() throws IOException {
        LocalBlobStore store = store();
        var random = new Random(42);
        for (int i = 0; i < 50; i++) {
            byte[] content = new byte[random.nextInt(200_000)];
            random.nextBytes(content);
            store.put("acme", content);
            store.put("acme", content);
        }

        assertThat(files()).hasSize(50).allSatisfy(f -> assertThat(BlobRef.isSha256(f.getFileName().toString())).isTrue());
    }

    @Test
    void aWriteInterruptedByACrash_isNeverServed_andTheNextPutCompletesIt() throws IOException {
        // a crash between write and rename leaves only a temporary file beside the blob's name
        Path shard = Files.createDirectories(root.resolve("61636d65").resolve("2c"));
        Path leftover = shard.resolve(HELLO_SHA256 + ".123456.tmp");
        Files.write(leftover, bytes("hel"));
        LocalBlobStore store = store();

        assertThat(store.open("acme", HELLO_SHA256)).isEmpty();

        store.put("acme", bytes("hello"));
        assertThat(read(store, "acme", HELLO_SHA256)).isEqualTo(bytes("hello"));
        assertThat(shard.resolve(HELLO_SHA256)).hasBinaryContent(bytes("hello"));
    }

    @Test
    void refusesToReadThroughALinkLeadingOutsideTheRoot() throws IOException {
        Path outside = Files.writeString(root.resolve("secret"), "secret");
        Path storeRoot = root.resolve("store");
        LocalBlobStore store = new LocalBlobStore(storeRoot);
        Path shard = Files.createDirectories(storeRoot.resolve("61636d65").resolve("2c"));
        Files.createSymbolicLink(shard.resolve(HELLO_SHA256), outside);

        assertThatIllegalStateException()
                .isThrownBy(() -> store.open("acme", HELLO_SHA256))
                .withMessageContaining("outside");
    }

    @Test
    void concurrentPutsOfTheSameContent_storeItOnce() throws Exception {
        LocalBlobStore store = store();
        byte[] content = new byte[1 << 20];
        new Random(7).nextBytes(content);
        int threads = 8;
        var start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            Callable<BlobRef> put = () -> {
                start.await();
                return store.put("acme", content);
            };
            List<Future<BlobRef>> refs = new ArrayList<>();
            for (int round = 0; round < 5; round++) {
                for (int i = 0; i < threads; i++) {
                    refs.add(pool.submit(put));
                }
            }
            start.countDown();

            BlobRef expected = refs.get(0).get(30, TimeUnit.SECONDS);
            for (Future<BlobRef> ref : refs) {
                assertThat(ref.get(30, TimeUnit.SECONDS)).isEqualTo(expected);
            }
            assertThat(files()).hasSize(1);
            assertThat(read(store, "acme", expected.sha256())).isEqualTo(content);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void refsCarryTheCanonicalUri() {
        assertThat(BlobRef.of(HELLO_SHA256, 5, "hello").uri()).isEqualTo("blob://sha256/" + HELLO_SHA256);
    }

    @Test
    void refsRejectInvalidFields() {
        assertThatIllegalArgumentException().isThrownBy(() -> BlobRef.of(HELLO_SHA256.toUpperCase(Locale.ROOT), 5, ""));
        assertThatIllegalArgumentException().isThrownBy(() -> BlobRef.of("../" + HELLO_SHA256.substring(3), 5, ""));
        assertThatIllegalArgumentException().isThrownBy(() -> BlobRef.of(HELLO_SHA256, -1, ""));
        assertThatNullPointerException().isThrownBy(() -> BlobRef.of(null, 5, ""));
        assertThatNullPointerException().isThrownBy(() -> BlobRef.of(HELLO_SHA256, 5, null));
        assertThatNullPointerException().isThrownBy(() -> new BlobRef(null, HELLO_SHA256, 5, ""));
    }

    private List<Path> files() {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path blobFile(String tenantId, String sha256) {
        return root.resolve(HexFormat.of().formatHex(tenantId.getBytes(UTF_8))).resolve(sha256.substring(0, 2)).resolve(sha256);
    }

    private Path onlyFile() {
        List<Path> files = files();
        assertThat(files).hasSize(1);
        return files.get(0);
    }

    private static byte[] read(BlobStore store, String tenantId, String sha256) throws IOException {
        try (InputStream in = store.open(tenantId, sha256).orElseThrow()) {
            return in.readAllBytes();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }
}
