package io.sluice.rpc.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileOptions;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorRequest;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import org.junit.jupiter.api.Test;

/**
 * The generated server hands the service's file descriptor (protoc's outer class {@code
 * getDescriptor()}) to its ServiceDefinition, except for lite files, whose classes have none. The
 * golden files show the line for the test protos.
 */
class FileDescriptorLineTest {

  private static String server(FileOptions options) {
    return server(options, "flavor=futures");
  }

  private static String server(FileOptions options, String parameter) {
    FileDescriptorProto f =
        FileDescriptorProto.newBuilder()
            .setName("p/greet.proto")
            .setPackage("p")
            .setOptions(options)
            .addMessageType(DescriptorProto.newBuilder().setName("Hi"))
            .addService(
                ServiceDescriptorProto.newBuilder()
                    .setName("Greeter")
                    .addMethod(MethodDescriptorProto.newBuilder().setName("Say").setInputType(".p.Hi").setOutputType(".p.Hi")))
            .build();
    CodeGeneratorResponse r =
        Generator.generate(
            CodeGeneratorRequest.newBuilder().addProtoFile(f).addFileToGenerate(f.getName()).setParameter(parameter).build());
    assertThat(r.getError()).isEmpty();
    return r.getFileList().stream()
        .filter(x -> x.getName().equals("p/FuturesGreeterServer.java"))
        .findFirst()
        .orElseThrow()
        .getContent();
  }

  @Test
  void fullFilesNameTheirOuterClassDescriptor() {
    assertThat(server(FileOptions.getDefaultInstance())).contains(".fileDescriptor(p.Greet.getDescriptor())");
    assertThat(server(FileOptions.newBuilder().setJavaOuterClassname("GreetProto").build()))
        .contains(".fileDescriptor(p.GreetProto.getDescriptor())");
  }

  @Test
  void liteFilesHaveNone() {
    assertThat(server(FileOptions.newBuilder().setOptimizeFor(FileOptions.OptimizeMode.LITE_RUNTIME).build()))
        .doesNotContain("fileDescriptor");
  }

  /** {@code lite} (or {@code lite=true}) is for code from {@code --java_out=lite:}. */
  @Test
  void theLiteOptionHasNone() {
    assertThat(server(FileOptions.getDefaultInstance(), "flavor=futures,lite")).doesNotContain("fileDescriptor");
    assertThat(server(FileOptions.getDefaultInstance(), "lite=true,flavor=futures")).doesNotContain("fileDescriptor");
    assertThat(server(FileOptions.getDefaultInstance(), "flavor=futures,lite=false"))
        .contains(".fileDescriptor(p.Greet.getDescriptor())");
  }
}
