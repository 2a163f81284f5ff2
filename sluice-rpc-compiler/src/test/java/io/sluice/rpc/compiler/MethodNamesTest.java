package io.sluice.rpc.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorRequest;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * rpc names whose constants or Java method names would be the same get distinct ones: a name
 * already taken in the service gets underscores appended, and methods earlier in the .proto keep
 * theirs. sluice/test/constants.proto has these names; every flavor module compiles the code
 * generated from it.
 */
class MethodNamesTest {
  private static final Pattern FIELD = Pattern.compile("^  (?:String|io\\.sluice\\.rpc\\.MethodDescriptor<[^>]*>) (\\w+) =", Pattern.MULTILINE);
  private static final Pattern METHOD = Pattern.compile("^  (?:default )?[\\w.<>, ]+ (\\w+)\\(", Pattern.MULTILINE);

  private static String iface(String flavor, String... rpcs) {
    ServiceDescriptorProto.Builder s = ServiceDescriptorProto.newBuilder().setName("Svc");
    for (String rpc : rpcs) {
      s.addMethod(MethodDescriptorProto.newBuilder().setName(rpc).setInputType(".p.M").setOutputType(".p.M"));
    }
    FileDescriptorProto f =
        FileDescriptorProto.newBuilder()
            .setName("p/names.proto")
            .setPackage("p")
            .addMessageType(DescriptorProto.newBuilder().setName("M"))
            .addService(s)
            .build();
    CodeGeneratorResponse r =
        Generator.generate(
            CodeGeneratorRequest.newBuilder().addProtoFile(f).addFileToGenerate(f.getName()).setParameter("flavor=" + flavor).build());
    assertThat(r.getError()).isEmpty();
    String prefix = flavor.equals("reactor") ? "Reactor" : flavor.equals("grpc") ? "Grpc" : "Futures";
    return r.getFileList().stream()
        .filter(x -> x.getName().equals("p/" + prefix + "Svc.java"))
        .findFirst()
        .orElseThrow()
        .getContent();
  }

  private static List<String> all(Pattern p, String code) {
    List<String> out = new ArrayList<>();
    Matcher m = p.matcher(code);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  @Test
  void aMethodNamedLikeAnotherOnesNameConstantGetsItsOwn() {
    String code = iface("reactor", "Info", "MethodInfo");
    assertThat(all(FIELD, code)).doesNotHaveDuplicates()
        .containsExactly("SERVICE", "METHOD_INFO", "METHOD_METHOD_INFO_", "INFO", "METHOD_INFO_");
  }

  @Test
  void namesThatDifferOnlyInCaseOrUnderscoresGetDistinctConstantsAndMethods() {
    for (String flavor : List.of("reactor", "futures", "grpc")) {
      String code = iface(flavor, "GetItem", "Get_Item", "getItem", "Service", "Service_");
      List<String> fields = all(FIELD, code);
      assertThat(fields).as(flavor).doesNotHaveDuplicates();
      assertThat(fields).as(flavor).contains("GET_ITEM", "GET_ITEM_", "GET_ITEM__", "SERVICE_", "SERVICE__");
      assertThat(all(METHOD, code)).as(flavor).doesNotHaveDuplicates()
          .containsExactly("getItem", "getItem_", "getItem__", "service", "service_");
      assertThat(code).contains("METHOD_GET_ITEM_ = \"Get_Item\"").contains("METHOD_SERVICE_ = \"Service\"");
    }
  }

  @Test
  void anEscapedKeywordDoesNotMeetAnotherMethod() {
    assertThat(all(METHOD, iface("futures", "Default", "Default_"))).containsExactly("default_", "default__");
  }
}
