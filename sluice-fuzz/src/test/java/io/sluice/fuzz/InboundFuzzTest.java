package io.sluice.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzz target over the inbound path: bytes from the peer, the TCP transport's u24
 * length-prefix splitter, the frame validator and the protocol engine, on the server (before and
 * after SETUP) and on the client. See {@link InboundHarness} for the input format and the checks.
 *
 * <p><b>Regression mode</b> (plain {@code ./mvnw test}): runs the empty input and every file under
 * {@code src/test/resources/io/sluice/fuzz/InboundFuzzTestInputs/fuzzInbound/}: the generated
 * seed corpus ({@code seeds/}, see {@link SeedCorpus}) and the minimized reproducers of past
 * findings ({@code regressions/}).
 *
 * <p><b>Fuzzing mode</b> ({@code JAZZER_FUZZ=1}, see {@code sluice-fuzz/fuzz.sh}): Jazzer mutates
 * inputs under coverage feedback from the {@code io.sluice} classes for {@code jazzer.max_duration}
 * (60 s unless overridden). New coverage goes to {@code sluice-fuzz/.cifuzz-corpus/}; a failing
 * input is saved as {@code crash-*} into the inputs directory.
 */
class InboundFuzzTest {
  static {
    // Before any Sluice class that logs is loaded.
    LogCapture.install();
  }

  private static final boolean FUZZING = !System.getenv().getOrDefault("JAZZER_FUZZ", "").isEmpty();

  @FuzzTest(maxDuration = "60s")
  void fuzzInbound(byte[] input) {
    // Recording allocation sites costs a stack trace per buffer: only when replaying inputs.
    InboundHarness.run(input, !FUZZING);
  }
}
