package io.sluice.examples.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RpcExampleTest {

  @Test
  void exampleCallsEveryKindOfMethod() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    assertThat(RpcExample.run(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
        .containsExactly(
            "unary: hello Ada",
            "unary with headers: bonjour Ada",
            "server-stream: hello Bob #0",
            "server-stream: hello Bob #1",
            "server-stream: hello Bob #2",
            "client-stream: hello Cy, Di, Ed",
            "bidi: hi Cy",
            "bidi: hi Di",
            "bidi: hi Ed",
            "fire-and-forget: sent");
  }

  @Test
  void demoCallsSucceedAndAreCounted() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RpcDemo.Result result = RpcDemo.run(1, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String text = bytes.toString(StandardCharsets.UTF_8);
    // Every unary reply was "hello demo" and the stream "hello stream" #0, #1, ... in order, and
    // at least one of each came (the demo waits for the first of each before its timed second).
    assertThat(result.failure()).as("the demo's first failed call or wrong reply; output:%n%s", text).isNull();
    assertThat(result.unaryCalls()).isPositive();
    assertThat(result.streamed()).isPositive();
    // What it prints is what it counted.
    assertThat(text)
        .contains("unary: hello Ada")
        .contains(
            "unary calls/s: " + result.unaryPerSecond()[0]
                + "   streamed messages/s: " + result.streamedPerSecond()[0])
        .contains(
            "total: " + result.unaryPerSecond()[0] + " unary calls and "
                + result.streamedPerSecond()[0] + " streamed messages in 1 s")
        .doesNotContain("failed");
  }
}
