package io.sluice.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the committed seed corpus in step with {@link SeedCorpus}: fails when a file differs,
 * is missing or is extra. With {@code -Dsluice.fuzz.writeSeeds=true} it rewrites the corpus
 * instead.
 */
class SeedCorpusTest {
  static {
    LogCapture.install();
  }

  private static Path dir() {
    return Path.of(System.getProperty("basedir", ".")).resolve(SeedCorpus.DIRECTORY);
  }

  @Test
  void committedCorpusMatchesTheGenerator() throws IOException {
    if (Boolean.getBoolean("sluice.fuzz.writeSeeds")) {
      SeedCorpus.write(dir());
    }
    Map<String, byte[]> expected = SeedCorpus.seeds();
    Map<String, byte[]> committed = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir())) {
      for (Path p : (Iterable<Path>) files::iterator) {
        committed.put(p.getFileName().toString(), Files.readAllBytes(p));
      }
    }
    String regenerate =
        "the committed seeds differ from SeedCorpus; regenerate with: ./mvnw -pl sluice-fuzz test"
            + " -Dtest=SeedCorpusTest -Dsluice.fuzz.writeSeeds=true";
    assertThat(new TreeSet<>(committed.keySet())).as(regenerate).isEqualTo(new TreeSet<>(expected.keySet()));
    for (Map.Entry<String, byte[]> e : expected.entrySet()) {
      assertThat(committed.get(e.getKey())).as("%s: %s", e.getKey(), regenerate).isEqualTo(e.getValue());
    }
  }

  @Test
  void corpusHasEveryFrameType() {
    TreeSet<String> types = new TreeSet<>();
    for (byte[] seed : SeedCorpus.seeds().values()) {
      ByteBuf b = Unpooled.wrappedBuffer(seed, 2, seed.length - 2);
      while (b.readableBytes() >= 3 + Frames.HEADER_SIZE) {
        int length = b.getUnsignedMedium(b.readerIndex());
        if (length < Frames.HEADER_SIZE || b.readableBytes() < 3 + length) {
          break;
        }
        types.add(FrameType.name(Frames.type(b.slice(b.readerIndex() + 3, length))));
        b.skipBytes(3 + length);
      }
    }
    assertThat(types)
        .contains(
            "SETUP", "LEASE", "KEEPALIVE", "REQUEST_RESPONSE", "REQUEST_FNF", "REQUEST_STREAM",
            "REQUEST_CHANNEL", "REQUEST_N", "CANCEL", "PAYLOAD", "ERROR", "METADATA_PUSH",
            "RESUME", "RESUME_OK", "EXT");
  }
}
