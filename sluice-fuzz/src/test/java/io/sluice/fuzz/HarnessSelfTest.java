package io.sluice.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import io.netty.buffer.Unpooled;
import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.test.FrameBuilder;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Tests of the test: the fuzz target must notice the failures it is there to find. Each case
 * plants a bug in the responder and checks that the harness reports it (and cleans up after it,
 * so no netty leak report follows).
 */
class HarnessSelfTest {
  static {
    LogCapture.install();
  }

  private static final Map<String, byte[]> SEEDS = SeedCorpus.seeds();

  @Test
  void everySeedPasses() {
    for (Map.Entry<String, byte[]> e : SEEDS.entrySet()) {
      try {
        InboundHarness.run(e.getValue(), true);
      } catch (AssertionError failure) {
        throw new AssertionError("seed " + e.getKey() + " fails", failure);
      }
    }
  }

  @Test
  void reportsALeakedBuffer() {
    assertThatThrownBy(
            () ->
                InboundHarness.run(
                    SEEDS.get("s-fire-and-forget"),
                    true,
                    alloc ->
                        new EchoResponder(alloc) {
                          @Override
                          public void fireAndForget(Message request) {
                            // planted bug: never released
                          }
                        }))
        .hasMessageContaining("were not released")
        .hasMessageContaining("at io.sluice.fuzz.InboundHarness.feed"); // where the leaked read came from
  }

  @Test
  void reportsAWarningTheEngineLogged() {
    assertThatThrownBy(
            () ->
                InboundHarness.run(
                    SEEDS.get("s-fire-and-forget"),
                    false,
                    alloc ->
                        new EchoResponder(alloc) {
                          @Override
                          public void fireAndForget(Message request) {
                            request.release();
                            throw new IllegalStateException("planted");
                          }
                        }))
        .hasMessageContaining("the engine logged WARNING")
        .hasMessageContaining("planted");
  }

  @Test
  void reportsAStreamLeftWithoutTerminalSignal() {
    assertThatThrownBy(
            () ->
                InboundHarness.run(
                    SEEDS.get("s-request-response-unanswered"),
                    false,
                    alloc ->
                        new EchoResponder(alloc) {
                          @Override
                          public StreamListener requestResponse(Message request, StreamHandle h) {
                            StreamListener real = super.requestResponse(request, h);
                            // planted bug: swallows the terminal signals
                            return new StreamListener() {
                              @Override
                              public void onNext(Message m) {
                                real.onNext(m);
                              }

                              @Override
                              public void onComplete() {}

                              @Override
                              public void onError(Throwable cause) {}
                            };
                          }
                        }))
        .hasMessageContaining("never got a terminal signal")
        .hasMessageContaining("were not released");
  }

  private static WireCheck sent(boolean client, FrameBuilder.Builder<?>... frames) {
    WireCheck w = new WireCheck(client);
    for (FrameBuilder.Builder<?> f : frames) {
      w.add(Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(f.toBytes())));
    }
    return w;
  }

  private static byte[] peer(FrameBuilder.Builder<?>... frames) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (FrameBuilder.Builder<?> f : frames) {
      out.writeBytes(FrameBuilder.lengthPrefixed(f.toBytes()));
    }
    return out.toByteArray();
  }

  @Test
  void wireRulesCatchMessagesBeyondCredit() {
    WireCheck w =
        sent(
            false,
            FrameBuilder.payload(1, true, false).data("a"),
            FrameBuilder.payload(1, true, false).follows(true).data("b1"),
            FrameBuilder.payload(1, true, false).data("b2"),
            FrameBuilder.payload(1, true, false).data("c"));
    byte[] peer =
        peer(FrameBuilder.requestStream(1, 1).data("x"), FrameBuilder.requestN(1, 1));
    assertThat(w.violations(true, peer, new ArrayList<>()))
        .singleElement(as(STRING))
        .contains("sent message 3 on stream 1", "granted only 2");
    byte[] unbounded = peer(FrameBuilder.requestStream(1, 0x7fffffff).data("x"));
    assertThat(w.violations(true, unbounded, new ArrayList<>())).isEmpty();
  }

  @Test
  void wireRulesCatchAKeepAliveAnswerToNothing() {
    WireCheck w = sent(false, FrameBuilder.keepAlive(false, 0).data("pong"));
    assertThat(w.violations(true, peer(FrameBuilder.keepAlive(true, 0).data("pong")), new ArrayList<>()))
        .isEmpty();
    assertThat(w.violations(true, peer(FrameBuilder.keepAlive(true, 0).data("ping")), new ArrayList<>()))
        .singleElement(as(STRING))
        .contains("answers no KEEPALIVE");
  }

  @Test
  void wireRulesCatchFramesAfterAConnectionError() {
    WireCheck w =
        sent(
            false,
            FrameBuilder.error(0, 0x101, "bad"),
            FrameBuilder.payload(1, true, true).data("late"));
    assertThat(w.violations(true, peer(FrameBuilder.requestResponse(1)), new ArrayList<>()))
        .singleElement(as(STRING))
        .contains("after the connection-ending");
  }

  @Test
  void aPlainRunLeavesNothingBehind() {
    InboundHarness.run(SEEDS.get("s-request-channel"), false, EchoResponder::new);
    assertThat(LogCapture.take()).isEmpty();
    assertThat(CheckedHandle.take()).isEmpty();
  }

}
