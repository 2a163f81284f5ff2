package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bind lock of unix socket files: turns within the JVM, and nothing kept once a bind is done. */
class UnixBindLockTest {
  @TempDir Path dir;

  @Test
  void aProcessThatBindsManyPathsKeepsNoStateForThem() throws Exception {
    int before = UnixSocketFiles.pathsBeingBound();
    for (int i = 0; i < 500; i++) {
      UnixSocketFiles.lockForBind(dir.resolve("s" + i + ".sock")).close();
    }
    assertThat(UnixSocketFiles.pathsBeingBound()).isEqualTo(before);
  }

  @Test
  void serversOfOneJvmTakeTurnsOnOnePath() throws Exception {
    int before = UnixSocketFiles.pathsBeingBound();
    Path path = dir.resolve("one.sock");
    UnixSocketFiles.BindLock first = UnixSocketFiles.lockForBind(path);
    CountDownLatch waiting = new CountDownLatch(1);
    CompletableFuture<UnixSocketFiles.BindLock> second =
        CompletableFuture.supplyAsync(
            () -> {
              waiting.countDown();
              try {
                return UnixSocketFiles.lockForBind(path);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(waiting.await(30, TimeUnit.SECONDS)).isTrue();
    // The second waits while the first holds the lock (both count as using the path).
    assertThat(second).isNotDone();
    first.close();
    second.get(30, TimeUnit.SECONDS).close();
    assertThat(UnixSocketFiles.pathsBeingBound()).isEqualTo(before);
  }
}
