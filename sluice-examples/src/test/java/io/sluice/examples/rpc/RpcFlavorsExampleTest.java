package io.sluice.examples.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RpcFlavorsExampleTest {
  @Test
  void everyFlavorServesAndCallsTheGreeter() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    assertThat(RpcFlavorsExample.run(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
        .containsExactly(
            "futures unary: hello Ada",
            "futures headers: bonjour Ada",
            "futures server-stream: hello Bob #0",
            "futures server-stream: hello Bob #1",
            "futures client-stream: hello Cy, Di",
            "futures bidi: hi Ed",
            "futures fire-and-forget: sent",
            "grpc stub -> futures server: hello Fay",
            "grpc unary with headers: bonjour Ada",
            "grpc server-stream: hello Bob | hello Bob",
            "grpc client-stream: hello Cy, Di",
            "grpc bidi: hi Ed",
            "futures client -> grpc server: hello Gus",
            "rxjava unary: hello Ada",
            "rxjava server-stream: [hello Bob, hello Bob]",
            "rxjava client-stream: hello Cy, Di",
            "rxjava fire-and-forget: sent",
            "mutiny unary: hello Ada",
            "mutiny bidi: [hi Cy, hi Di]");
  }
}
