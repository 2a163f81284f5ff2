package io.sluice.rpc.services;

import static io.sluice.rpc.services.Served.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.services.grpc.reflection.v1.ExtensionRequest;
import io.sluice.rpc.services.grpc.reflection.v1.ReactorServerReflectionClient;
import io.sluice.rpc.services.grpc.reflection.v1.ServerReflectionRequest;
import io.sluice.rpc.services.grpc.reflection.v1.ServerReflectionResponse;
import io.sluice.rpc.services.grpc.reflection.v1.ServiceResponse;
import io.sluice.rpc.services.test.GreetRequest;
import io.sluice.rpc.services.test.Greeting;
import io.sluice.rpc.services.test.ReactorGreeter;
import io.sluice.rpc.services.test.ReactorGreeterServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Server reflection v1 and v1alpha over RSocket (TCP on 127.0.0.1), asked by the generated Sluice
 * client: the registry holds a test Greeter (greet.proto, which imports types.proto and
 * google/protobuf/timestamp.proto), health, and reflection itself. v1alpha requests go through
 * the v1 client's bytes, since the two versions' messages are the same on the wire.
 */
class ReflectionServiceTest {
  private static Served served;
  private static ReactorServerReflectionClient v1;
  private static io.sluice.rpc.services.grpc.reflection.v1alpha.ReactorServerReflectionClient v1alpha;

  @BeforeAll
  static void start() throws Exception {
    ReactorGreeter greeter =
        new ReactorGreeter() {
          @Override
          public Mono<Greeting> greet(GreetRequest request) {
            return Mono.just(Greeting.newBuilder().setText("hello " + request.getName()).build());
          }

          @Override
          public Flux<Greeting> greetMany(GreetRequest request) {
            return Flux.empty();
          }
        };
    ServiceRegistry registry =
        ReflectionService.withReflection(
            ServiceRegistry.builder().add(new ReactorGreeterServer(greeter)).add(new HealthService()).build());
    served = new Served(registry);
    v1 = new ReactorServerReflectionClient(served.requester());
    v1alpha = new io.sluice.rpc.services.grpc.reflection.v1alpha.ReactorServerReflectionClient(served.requester());
  }

  @AfterAll
  static void stop() throws Exception {
    served.close();
  }

  /** Asks {@code requests} on one call of the given version; the answers, in order. */
  private static List<ServerReflectionResponse> ask(String version, ServerReflectionRequest... requests) {
    if (version.equals("v1")) {
      return v1.serverReflectionInfo(Flux.just(requests)).collectList().block(WAIT);
    }
    List<io.sluice.rpc.services.grpc.reflection.v1alpha.ServerReflectionRequest> alpha = new ArrayList<>();
    for (ServerReflectionRequest r : requests) {
      alpha.add(convert(r.toByteString(), io.sluice.rpc.services.grpc.reflection.v1alpha.ServerReflectionRequest.parser()));
    }
    List<ServerReflectionResponse> out = new ArrayList<>();
    for (var r : v1alpha.serverReflectionInfo(Flux.fromIterable(alpha)).collectList().block(WAIT)) {
      out.add(convert(r.toByteString(), ServerReflectionResponse.parser()));
    }
    return out;
  }

  private static ServerReflectionResponse askOne(String version, ServerReflectionRequest request) {
    List<ServerReflectionResponse> r = ask(version, request);
    assertThat(r).hasSize(1);
    assertThat(r.get(0).getOriginalRequest()).isEqualTo(request);
    return r.get(0);
  }

  private static <T> T convert(ByteString bytes, com.google.protobuf.Parser<T> parser) {
    try {
      return parser.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  private static ServerReflectionRequest symbol(String s) {
    return ServerReflectionRequest.newBuilder().setHost("h").setFileContainingSymbol(s).build();
  }

  /**
   * Rebuilds the first file of a file_descriptor_response from the response alone, as grpcurl
   * does: every import must be in it.
   */
  private static FileDescriptor rebuild(ServerReflectionResponse r) throws Exception {
    assertThat(r.hasFileDescriptorResponse()).as("%s", r).isTrue();
    Map<String, FileDescriptorProto> protos = new HashMap<>();
    String first = null;
    for (ByteString b : r.getFileDescriptorResponse().getFileDescriptorProtoList()) {
      FileDescriptorProto p = FileDescriptorProto.parseFrom(b);
      assertThat(protos.put(p.getName(), p)).as("file %s sent once", p.getName()).isNull();
      first = first == null ? p.getName() : first;
    }
    return build(first, protos, new HashMap<>());
  }

  private static FileDescriptor build(String name, Map<String, FileDescriptorProto> protos, Map<String, FileDescriptor> built)
      throws DescriptorValidationException {
    FileDescriptor done = built.get(name);
    if (done != null) {
      return done;
    }
    FileDescriptorProto p = protos.get(name);
    assertThat(p).as("dependency %s is in the response", name).isNotNull();
    List<FileDescriptor> deps = new ArrayList<>();
    for (String d : p.getDependencyList()) {
      deps.add(build(d, protos, built));
    }
    FileDescriptor f = FileDescriptor.buildFrom(p, deps.toArray(new FileDescriptor[0]));
    built.put(name, f);
    return f;
  }

  @ParameterizedTest
  @ValueSource(strings = {"v1", "v1alpha"})
  void listServicesNamesEveryServiceServed(String version) {
    ServerReflectionResponse r =
        askOne(version, ServerReflectionRequest.newBuilder().setListServices("*").build());
    assertThat(r.getListServicesResponse().getServiceList())
        .extracting(ServiceResponse::getName)
        .containsExactly(
            "sluice.services.test.Greeter",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection");
  }

  @ParameterizedTest
  @ValueSource(strings = {"v1", "v1alpha"})
  void fileContainingSymbolRebuildsWithItsDependencies(String version) throws Exception {
    ServerReflectionResponse r = askOne(version, symbol("sluice.services.test.Greeter"));
    assertThat(r.getValidHost()).isEqualTo("h");
    FileDescriptor f = rebuild(r);
    assertThat(f.getName()).isEqualTo("sluice/services/test/greet.proto");
    assertThat(f.findServiceByName("Greeter").getMethods())
        .extracting(m -> m.getName() + ":" + m.getInputType().getFullName() + "->" + m.getOutputType().getFullName()
            + (m.isServerStreaming() ? " stream" : ""))
        .containsExactly(
            "Greet:sluice.services.test.GreetRequest->sluice.services.test.Greeting",
            "GreetMany:sluice.services.test.GreetRequest->sluice.services.test.Greeting stream");
    assertThat(f.getDependencies())
        .extracting(FileDescriptor::getName)
        .containsExactly("google/protobuf/timestamp.proto", "sluice/services/test/types.proto");
    assertThat(f.toProto()).isEqualTo(io.sluice.rpc.services.test.Greet.getDescriptor().toProto());

    // A method, a message of an imported file, and the services' own files.
    assertThat(rebuild(askOne(version, symbol("sluice.services.test.Greeter.Greet"))).getName())
        .isEqualTo("sluice/services/test/greet.proto");
    assertThat(rebuild(askOne(version, symbol("sluice.services.test.Greeting"))).getName())
        .isEqualTo("sluice/services/test/types.proto");
    assertThat(rebuild(askOne(version, symbol("google.protobuf.Timestamp"))).getName())
        .isEqualTo("google/protobuf/timestamp.proto");
    assertThat(rebuild(askOne(version, symbol("grpc.health.v1.Health"))).findServiceByName("Health")).isNotNull();
    assertThat(rebuild(askOne(version, symbol("grpc.health.v1.HealthCheckResponse.ServingStatus"))).getName())
        .isEqualTo("grpc/health/v1/health.proto");
    assertThat(rebuild(askOne(version, symbol("grpc." + "reflection." + version + ".ServerReflection"))).getName())
        .isEqualTo("grpc/reflection/" + version + "/reflection.proto");
  }

  @ParameterizedTest
  @ValueSource(strings = {"v1", "v1alpha"})
  void fileByFilename(String version) throws Exception {
    FileDescriptor f =
        rebuild(askOne(version, ServerReflectionRequest.newBuilder().setFileByFilename("sluice/services/test/types.proto").build()));
    assertThat(f.findMessageTypeByName("Greeting")).isNotNull();
    assertThat(f.getDependencies()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"v1", "v1alpha"})
  void unknownNamesGetNotFoundErrorResponses(String version) {
    List<ServerReflectionResponse> answers =
        ask(
            version,
            symbol("sluice.services.test.Nothing"),
            ServerReflectionRequest.newBuilder().setFileByFilename("no/such.proto").build(),
            ServerReflectionRequest.newBuilder()
                .setFileContainingExtension(
                    ExtensionRequest.newBuilder().setContainingType("sluice.services.test.Greeting").setExtensionNumber(150))
                .build(),
            ServerReflectionRequest.newBuilder().setAllExtensionNumbersOfType("sluice.services.test.Nothing").build(),
            ServerReflectionRequest.newBuilder().setHost("only a host").build());
    assertThat(answers).hasSize(5);
    for (int i = 0; i < 4; i++) {
      assertThat(answers.get(i).hasErrorResponse()).as("answer %d: %s", i, answers.get(i)).isTrue();
      assertThat(answers.get(i).getErrorResponse().getErrorCode()).isEqualTo(Status.Code.NOT_FOUND.value());
    }
    assertThat(answers.get(0).getErrorResponse().getErrorMessage()).contains("sluice.services.test.Nothing");
    assertThat(answers.get(4).getErrorResponse().getErrorCode()).isEqualTo(Status.Code.INVALID_ARGUMENT.value());
  }

  @ParameterizedTest
  @ValueSource(strings = {"v1", "v1alpha"})
  void extensions(String version) throws Exception {
    ServerReflectionResponse numbers =
        askOne(version, ServerReflectionRequest.newBuilder().setAllExtensionNumbersOfType("sluice.services.test.Greeting").build());
    assertThat(numbers.getAllExtensionNumbersResponse().getBaseTypeName()).isEqualTo("sluice.services.test.Greeting");
    assertThat(numbers.getAllExtensionNumbersResponse().getExtensionNumberList()).containsExactly(100, 101);

    ServerReflectionResponse none =
        askOne(version, ServerReflectionRequest.newBuilder().setAllExtensionNumbersOfType("sluice.services.test.GreetRequest").build());
    assertThat(none.getAllExtensionNumbersResponse().getExtensionNumberList()).isEmpty();

    FileDescriptor f =
        rebuild(
            askOne(
                version,
                ServerReflectionRequest.newBuilder()
                    .setFileContainingExtension(
                        ExtensionRequest.newBuilder().setContainingType("sluice.services.test.Greeting").setExtensionNumber(101))
                    .build()));
    assertThat(f.findExtensionByName("language").getNumber()).isEqualTo(101);
    assertThat(rebuild(askOne(version, symbol("sluice.services.test.priority"))).getName())
        .isEqualTo("sluice/services/test/greet.proto");
  }

  @org.junit.jupiter.api.Test
  void serviceNamesAndDuplicates() {
    ReflectionService r = ReflectionService.builder().add(new HealthService()).build();
    assertThat(r.serviceNames())
        .containsExactly("grpc.health.v1.Health", ReflectionService.V1, ReflectionService.V1ALPHA);
    assertThatThrownBy(() -> ReflectionService.builder().add(new HealthService()).add(new HealthService()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("added twice");
  }
}
