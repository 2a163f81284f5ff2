package io.sluice.rpc.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Java class names follow protoc's Java generator. */
class JavaNamesTest {

  @Test
  void outerClassFollowsTheFileNameInCamelCase() {
    FileDescriptorProto f = FileDescriptorProto.newBuilder().setName("a/b/my_file-v2.proto").setPackage("p").build();
    assertThat(JavaNames.outerClassName(f)).isEqualTo("MyFileV2");
  }

  @Test
  void outerClassGetsASuffixWhenATypeHasItsName() {
    FileDescriptorProto f =
        FileDescriptorProto.newBuilder()
            .setName("echo.proto")
            .setPackage("p")
            .addMessageType(DescriptorProto.newBuilder().setName("Echo"))
            .build();
    assertThat(JavaNames.outerClassName(f)).isEqualTo("EchoOuterClass");
    assertThat(new JavaNames(List.of(f)).javaType(".p.Echo")).isEqualTo("p.EchoOuterClass.Echo");
  }

  @Test
  void multipleFilesAndNestedTypes() {
    FileDescriptorProto f =
        FileDescriptorProto.newBuilder()
            .setName("x.proto")
            .setPackage("p.q")
            .setOptions(FileOptions.newBuilder().setJavaPackage("com.x").setJavaMultipleFiles(true))
            .addMessageType(
                DescriptorProto.newBuilder().setName("A").addNestedType(DescriptorProto.newBuilder().setName("B")))
            .build();
    JavaNames n = new JavaNames(List.of(f));
    assertThat(n.javaType(".p.q.A")).isEqualTo("com.x.A");
    assertThat(n.javaType(".p.q.A.B")).isEqualTo("com.x.A.B");
  }

  @Test
  void methodNames() {
    assertThat(JavaNames.camel("SayHello", false)).isEqualTo("sayHello");
    assertThat(JavaNames.camel("get_user_v2", false)).isEqualTo("getUserV2");
    assertThat(Generator.Method.upperSnake("SayHello")).isEqualTo("SAY_HELLO");
    assertThat(Keywords.safe("default")).isEqualTo("default_");
  }
}
