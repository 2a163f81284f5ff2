package io.sluice.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.EmptyProto;
import org.junit.jupiter.api.Test;

/** The optional file descriptor of a service definition. */
class ServiceDefinitionTest {

  private static FileDescriptor greeterFile(String pkg) throws Exception {
    FileDescriptorProto p =
        FileDescriptorProto.newBuilder()
            .setName("greeter.proto")
            .setPackage(pkg)
            .addDependency("google/protobuf/empty.proto")
            .addService(
                ServiceDescriptorProto.newBuilder()
                    .setName("Greeter")
                    .addMethod(
                        MethodDescriptorProto.newBuilder()
                            .setName("Say")
                            .setInputType(".google.protobuf.Empty")
                            .setOutputType(".google.protobuf.Empty")))
            .build();
    return FileDescriptor.buildFrom(p, new FileDescriptor[] {EmptyProto.getDescriptor()});
  }

  @Test
  void noneUnlessSet() {
    assertThat(ServiceDefinition.builder("demo.Greeter").build().fileDescriptor()).isNull();
  }

  @Test
  void keepsAFileThatDeclaresTheService() throws Exception {
    FileDescriptor f = greeterFile("demo");
    assertThat(ServiceDefinition.builder("demo.Greeter").fileDescriptor(f).build().fileDescriptor()).isSameAs(f);
    FileDescriptor noPackage = greeterFile("");
    assertThat(ServiceDefinition.builder("Greeter").fileDescriptor(noPackage).build().fileDescriptor())
        .isSameAs(noPackage);
  }

  @Test
  void refusesAFileThatDoesNot() throws Exception {
    FileDescriptor f = greeterFile("demo");
    assertThatThrownBy(() -> ServiceDefinition.builder("demo.Other").fileDescriptor(f))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("file greeter.proto does not declare service demo.Other");
    assertThatThrownBy(() -> ServiceDefinition.builder("other.Greeter").fileDescriptor(f))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ServiceDefinition.builder("Greeter").fileDescriptor(EmptyProto.getDescriptor()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
