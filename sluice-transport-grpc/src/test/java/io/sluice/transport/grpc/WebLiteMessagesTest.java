package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.AbstractParser;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import com.google.protobuf.StringValue;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A method of lite messages (no descriptor, as protoc makes them for optimize_for = LITE_RUNTIME):
 * HTTP/JSON answers 415 and says why; gRPC-Web serves it.
 */
class WebLiteMessagesTest {
  /** A lite message with one string field 1 (the wire format of StringValue). */
  static final class LiteText implements MessageLite {
    static final Parser<LiteText> PARSER =
        new AbstractParser<>() {
          @Override
          public LiteText parsePartialFrom(CodedInputStream in, ExtensionRegistryLite extensions)
              throws InvalidProtocolBufferException {
            String value = "";
            try {
              for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                if (tag == 10) {
                  value = in.readString();
                } else if (!in.skipField(tag)) {
                  break;
                }
              }
            } catch (IOException e) {
              throw new InvalidProtocolBufferException(e.getMessage());
            }
            return new LiteText(value);
          }
        };

    final String value;

    LiteText(String value) {
      this.value = value;
    }

    @Override
    public void writeTo(CodedOutputStream out) throws IOException {
      if (!value.isEmpty()) {
        out.writeString(1, value);
      }
    }

    @Override
    public int getSerializedSize() {
      return value.isEmpty() ? 0 : CodedOutputStream.computeStringSize(1, value);
    }

    @Override
    public Parser<LiteText> getParserForType() {
      return PARSER;
    }

    @Override
    public ByteString toByteString() {
      return ByteString.copyFrom(toByteArray());
    }

    @Override
    public byte[] toByteArray() {
      byte[] b = new byte[getSerializedSize()];
      try {
        writeTo(CodedOutputStream.newInstance(b));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      return b;
    }

    @Override
    public void writeTo(OutputStream out) throws IOException {
      out.write(toByteArray());
    }

    @Override
    public void writeDelimitedTo(OutputStream out) throws IOException {
      CodedOutputStream c = CodedOutputStream.newInstance(out);
      c.writeUInt32NoTag(getSerializedSize());
      writeTo(c);
      c.flush();
    }

    @Override
    public Builder newBuilderForType() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Builder toBuilder() {
      throw new UnsupportedOperationException();
    }

    @Override
    public MessageLite getDefaultInstanceForType() {
      return new LiteText("");
    }

    @Override
    public boolean isInitialized() {
      return true;
    }
  }

  @Test
  void jsonSays415AndGrpcWebServes() throws Exception {
    ServerCallHandler<LiteText, LiteText> echo =
        call -> {
          call.request(1);
          return new EchoService.Adapter<>() {
            @Override
            public void onMessage(LiteText m) {
              call.sendMessage(new LiteText(m.value + "!"));
              call.close(Status.OK);
            }
          };
        };
    ServiceRegistry registry =
        ServiceRegistry.builder()
            .add(
                ServiceDefinition.builder("sluice.test.Lite")
                    .add(
                        MethodDescriptor.<LiteText, LiteText>builder()
                            .service("sluice.test.Lite").method("Echo").kind(MethodKind.UNARY)
                            .requestParser(LiteText.PARSER).responseParser(LiteText.PARSER).build(),
                        echo)
                    .build())
            .build();
    GrpcServer.Running server = GrpcServer.create("127.0.0.1", 0).withServices(registry).start();
    try {
      HttpClient c = WebHttp.client(HttpClient.Version.HTTP_1_1, null);
      String url = "http://127.0.0.1:" + server.port() + "/sluice.test.Lite/Echo";
      HttpResponse<byte[]> json = WebHttp.post(c, url, "application/json", "\"x\"".getBytes(StandardCharsets.UTF_8));
      assertThat(json.statusCode()).isEqualTo(415);
      assertThat(new String(json.body(), StandardCharsets.UTF_8))
          .startsWith("{\"code\":12,")
          .contains("sluice.test.Lite/Echo uses lite protobuf messages, which carry no descriptor");
      HttpResponse<byte[]> web = WebHttp.post(c, url, GrpcWebTest.WEB, WebHttp.frame(StringValue.of("lite")));
      WebHttp.Body body = WebHttp.parse(web.body());
      assertThat(StringValue.parseFrom(body.messages().get(0)).getValue()).isEqualTo("lite!");
      assertThat(body.trailers()).containsEntry("grpc-status", "0");
    } finally {
      server.close();
      server.onClose().get();
    }
  }
}
