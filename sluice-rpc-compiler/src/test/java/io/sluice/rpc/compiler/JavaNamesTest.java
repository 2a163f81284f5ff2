package io.sluice.rpc.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.Edition;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.FeatureSet;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileOptions;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
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

  /** Edition 2023 names classes as proto3 does: java_multiple_files and the OuterClass suffix. */
  @Test
  void edition2023NamesAsProto3() {
    FileDescriptorProto f =
        FileDescriptorProto.newBuilder()
            .setName("foo.proto")
            .setPackage("p")
            .setSyntax("editions")
            .setEdition(Edition.EDITION_2023)
            .addMessageType(DescriptorProto.newBuilder().setName("Foo"))
            .build();
    assertThat(JavaNames.outerClassName(f)).isEqualTo("FooOuterClass");
    assertThat(new JavaNames(List.of(f)).javaType(".p.Foo")).isEqualTo("p.FooOuterClass.Foo");
  }

  /**
   * Edition 2024: the default outer class is the file name plus Proto (no OuterClass rule), and a
   * top-level type is its own class unless it sets {@code nest_in_file_class = YES}.
   */
  @Test
  void edition2024UsesTheProtoSuffixAndNestInFileClass() {
    // features.(pb.java).nest_in_file_class = YES as protoc sends it: extension 1001 of FeatureSet,
    // a JavaFeatures whose field 5 is 2.
    FeatureSet nest =
        FeatureSet.newBuilder()
            .setUnknownFields(
                UnknownFieldSet.newBuilder()
                    .addField(
                        1001,
                        UnknownFieldSet.Field.newBuilder()
                            .addLengthDelimited(ByteString.copyFrom(new byte[] {5 << 3, 2}))
                            .build())
                    .build())
            .build();
    FileDescriptorProto f =
        FileDescriptorProto.newBuilder()
            .setName("a/foo_bar.proto")
            .setPackage("p")
            .setSyntax("editions")
            .setEdition(Edition.EDITION_2024)
            .addMessageType(DescriptorProto.newBuilder().setName("Own").addNestedType(DescriptorProto.newBuilder().setName("In")))
            .addMessageType(
                DescriptorProto.newBuilder()
                    .setName("Nested")
                    .setOptions(MessageOptions.newBuilder().setFeatures(nest))
                    .addNestedType(DescriptorProto.newBuilder().setName("In")))
            .addEnumType(EnumDescriptorProto.newBuilder().setName("FooBar"))
            .build();
    assertThat(JavaNames.outerClassName(f)).isEqualTo("FooBarProto");
    JavaNames n = new JavaNames(List.of(f));
    assertThat(n.javaType(".p.Own")).isEqualTo("p.Own");
    assertThat(n.javaType(".p.Own.In")).isEqualTo("p.Own.In");
    assertThat(n.javaType(".p.Nested")).isEqualTo("p.FooBarProto.Nested");
    assertThat(n.javaType(".p.Nested.In")).isEqualTo("p.FooBarProto.Nested.In");
    assertThat(n.javaType(".p.FooBar")).isEqualTo("p.FooBar");
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
