package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.ConnectionOptions;
import io.sluice.lease.LeasePolicy;
import io.sluice.lease.adaptive.AdaptiveLeasePolicy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code ./sluice server --lease} and {@code --lease-fixed}: the policy each picks, and misuse. */
class ServerLeaseTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private static ConnectionOptions options(String... args) {
    String[] argv = new String[args.length + 1];
    argv[0] = "server";
    System.arraycopy(args, 0, argv, 1, args.length);
    return Main.serverOptions(Main.COMMANDS.get("server").parse(argv));
  }

  private String usageError(String... args) {
    String[] argv = new String[args.length + 1];
    argv[0] = "server";
    System.arraycopy(args, 0, argv, 1, args.length);
    err.reset();
    int code =
        Main.run(
            argv,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as(String.join(" ", args)).isEqualTo(2);
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void leaseRunsTheAdaptivePolicy() {
    ConnectionOptions o = options("--lease");
    assertThat(o.lease()).isTrue();
    assertThat(o.leasePolicy()).isInstanceOf(AdaptiveLeasePolicy.class);
    assertThat(o.leasePolicy().requestStats()).isNotNull();
  }

  @Test
  void leaseFixedGrantsItsTtlAndRequests() {
    ConnectionOptions o = options("--lease-fixed", "1000:50");
    assertThat(o.lease()).isTrue();
    assertThat(o.leasePolicy())
        .hasToString(LeasePolicy.fixed(Duration.ofMillis(1000), 50).toString());
    assertThat(options("--lease-fixed=250:0").leasePolicy())
        .hasToString(LeasePolicy.fixed(Duration.ofMillis(250), 0).toString());
  }

  @Test
  void withoutEitherTheServerStillGrantsUnlimitedLeases() {
    ConnectionOptions o = options();
    assertThat(o.lease()).isTrue();
    assertThat(o.leasePolicy()).hasToString(LeasePolicy.unlimited().toString());
  }

  @Test
  void misuseIsAUsageErrorSayingWhy() {
    assertThat(usageError("--lease", "--lease-fixed", "1000:5")).contains("pick one");
    assertThat(usageError("--lease-fixed", "1000")).contains("needs TTL_MS:REQUESTS");
    assertThat(usageError("--lease-fixed", "0:5")).contains("its ttl in ms must be 1 to");
    assertThat(usageError("--lease-fixed", "1000:-1")).contains("its requests must be 0 to");
    assertThat(usageError("--lease-fixed", "1000:lots")).contains("got 'lots'");
    assertThat(usageError("--lease-fixed", "99999999999:5")).contains("its ttl in ms");
    assertThat(usageError("--lease", "--transport", "h2")).contains("--lease: the HTTP/2 stream mapping");
    assertThat(usageError("--lease-fixed", "1000:5", "--transport", "h2"))
        .contains("--lease-fixed: the HTTP/2 stream mapping");
  }

  @Test
  void theAdaptivePolicyIsReportedAndOthersAreNot() {
    assertThat(ServerLease.report(LeasePolicy.unlimited(), System.err)).isNull();
    var timer = ServerLease.report(AdaptiveLeasePolicy.withDefaults(), System.err);
    try {
      assertThat(timer).isNotNull();
    } finally {
      timer.shutdownNow();
    }
  }
}
