package io.sluice.rpc.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileOptions;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
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

  /** protoc looks for the name among nested messages and enums too, at any depth (A7). */
  @Test
  void outerClassGetsASuffixWhenANestedTypeHasItsName() {
    FileDescriptorProto nestedMessage =
        FileDescriptorProto.newBuilder()
            .setName("x/foo.proto")
            .setPackage("p")
            .addMessageType(
                DescriptorProto.newBuilder()
                    .setName("Bar")
                    .addNestedType(
                        DescriptorProto.newBuilder().setName("Baz").addNestedType(DescriptorProto.newBuilder().setName("Foo"))))
            .addService(ServiceDescriptorProto.newBuilder().setName("Svc"))
            .build();
    assertThat(JavaNames.outerClassName(nestedMessage)).isEqualTo("FooOuterClass");
    assertThat(new JavaNames(List.of(nestedMessage)).javaType(".p.Bar.Baz.Foo")).isEqualTo("p.FooOuterClass.Bar.Baz.Foo");

    FileDescriptorProto nestedEnum =
        FileDescriptorProto.newBuilder()
            .setName("foo.proto")
            .addMessageType(DescriptorProto.newBuilder().setName("Bar").addEnumType(EnumDescriptorProto.newBuilder().setName("Foo")))
            .build();
    assertThat(JavaNames.outerClassName(nestedEnum)).isEqualTo("FooOuterClass");

    // Only an exact match counts, as in protoc.
    FileDescriptorProto otherCase =
        FileDescriptorProto.newBuilder()
            .setName("foo.proto")
            .addMessageType(DescriptorProto.newBuilder().setName("Bar").addNestedType(DescriptorProto.newBuilder().setName("FOO")))
            .build();
    assertThat(JavaNames.outerClassName(otherCase)).isEqualTo("Foo");
  }

  @Test
  void protodevelFilesAreStrippedAsProtoFiles() {
    FileDescriptorProto f = FileDescriptorProto.newBuilder().setName("old_one.protodevel").build();
    assertThat(JavaNames.outerClassName(f)).isEqualTo("OldOne");
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
